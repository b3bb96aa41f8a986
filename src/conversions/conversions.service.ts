import type { ApiKeyPrincipal } from '../auth/api-keys';
import type { Db } from '../db/db';
import { HttpError, unauthorized, validationError, type ValidationBody } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { strictBody } from '../http/strict-body';
import { newId, type Clock } from '../shared/ids';
import type { ClickWaitTiming } from '../tracking/click-arrival';
import { matchClick } from './click-match';
import {
  ConversionInput,
  DEFAULT_CONVERSIONS_LIMIT,
  toConversion,
  type Conversion,
  type ConversionResult,
  type ConversionSource,
  type ListConversionsQuery,
  type PostbackQuery,
} from './conversions.model';
import { CONVERSIONS_KEYSET, listConversions, saveConversion, type ConversionFields, type SavedConversion } from './conversions.repo';
import type { ClickConversionWriter } from './conversions.writer';

export interface ConversionsDeps {
  db: Db;
  clock: Clock;
  timing?: ClickWaitTiming;
  /** Group commit for the hot path (a click id that names a stored click). */
  writer: ClickConversionWriter;
  /** Called after a commit that queued outbound postbacks, so this node sends them at once. */
  onDeliveriesQueued?: () => void;
}

export const DEFAULT_EVENT = 'conversion';

const checkSchema = strictBody(ConversionInput);
const ONE_OF = { click_id: ['click_id or gclid is required'], gclid: ['click_id or gclid is required'] };

/**
 * Checks a ConversionInput candidate: the schema, plus the rule a schema cannot say (one of
 * click_id or gclid). Every problem is reported at once. Used as the JSON route's transform.
 */
export function checkConversionInput({ body }: { body: unknown }): void {
  let problems: ValidationBody = { formErrors: [], fieldErrors: {} };
  try {
    checkSchema({ body });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    problems = error.body.error as ValidationBody;
  }
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (candidate.click_id === undefined && candidate.gclid === undefined) Object.assign(problems.fieldErrors, ONE_OF);
  if (problems.formErrors.length > 0 || Object.keys(problems.fieldErrors).length > 0) {
    throw validationError(problems.fieldErrors, problems.formErrors);
  }
}
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Turns /postback query text into a ConversionInput and checks it by the same rules as the
 * JSON body. Empty parameters count as absent: postback templates leave a macro the network
 * could not fill as `value=`. A `value` that is not a decimal number stays text and fails.
 */
export function parsePostbackQuery(query: PostbackQuery): ConversionInput {
  const candidate: Record<string, unknown> = {};
  for (const name of ['click_id', 'gclid', 'event', 'value', 'currency', 'order_id'] as const) {
    const text = query[name];
    if (text === undefined || text === '') continue;
    candidate[name] = name === 'value' && DECIMAL.test(text) && Number.isFinite(Number(text)) ? Number(text) : text;
  }
  checkConversionInput({ body: candidate });
  return candidate as ConversionInput;
}

/**
 * Stores a conversion with its audit row and, when new, its outbound postbacks, atomically. A
 * click id naming a stored click takes the group-committed hot path; anything else is matched and
 * stored on its own. A revoked API key stores nothing (401) (docs/conversions.md).
 */
export async function recordConversion(
  deps: ConversionsDeps,
  principal: ApiKeyPrincipal,
  input: ConversionInput,
  source: ConversionSource,
): Promise<ConversionResult> {
  if (input.click_id === undefined && input.gclid === undefined) throw validationError(ONE_OF);
  const fields: ConversionFields = {
    id: newId(),
    orgId: principal.orgId,
    eventName: input.event ?? DEFAULT_EVENT,
    value: input.value ?? null,
    currency: input.currency?.toUpperCase() ?? null,
    orderId: input.order_id ?? null,
    gclid: input.gclid ?? null,
    source,
    apiKeyId: principal.keyId,
  };
  const auditId = newId();
  let saved: SavedConversion | null = null;
  if (input.click_id !== undefined) {
    const outcome = await deps.writer.submit({ fields, auditId, clickId: input.click_id });
    if (outcome.status === 'key-revoked') throw unauthorized();
    if (outcome.status === 'saved') saved = outcome.saved;
  }
  if (!saved) {
    const click = await matchClick(deps, principal.orgId, { clickId: input.click_id, gclid: input.gclid });
    saved = await saveConversion(deps.db, fields, auditId, {
      clickId: click?.id ?? input.click_id ?? null,
      campaignId: click?.campaignId ?? null,
      matched: click !== null,
    });
    if (!saved) throw unauthorized();
  }
  if (saved.queued > 0) deps.onDeliveriesQueued?.();
  return { ok: true, id: saved.id, matched: saved.matched };
}

export function listOrgConversions({ db }: Pick<ConversionsDeps, 'db'>, orgId: string, query: ListConversionsQuery): Promise<Page<Conversion>> {
  return readPage({
    keyset: CONVERSIONS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_CONVERSIONS_LIMIT,
    fetch: (page) => listConversions(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toConversion,
  });
}
