import type { KeyObject } from 'node:crypto';
import type { Db } from '../db/db';
import { badRequest, fieldError, HttpError, validationError, type ValidationBody } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { strictBody } from '../http/strict-body';
import { newId } from '../shared/ids';
import { canonicalAppStoreId, decodePostback, sourceIdentifierMatch } from './skan-decode';
import {
  DEFAULT_LIST_LIMIT,
  type ListSkanPostbacksQuery,
  ORG_ID_PATTERN,
  SKAN_VERSIONS,
  SkanPostbackBody,
  type SkanPostbackResponse,
  type SkanPostbackRow,
  type SkanVersion,
} from './skan.model';
import * as repo from './skan.repo';
import { verifySignature } from './skan-signature';

export interface SkanDeps {
  db: Db;
  /** The key postbacks must be signed with: Apple's, or SKAN_PUBLIC_KEY. */
  publicKey: KeyObject;
  /** SKAN_VERIFY: false stores a postback whose signature fails, marked verified: false. */
  verify: boolean;
}

const checkBodySchema = strictBody(SkanPostbackBody);
const isVersion = (version: unknown): version is SkanVersion => SKAN_VERSIONS.includes(version as SkanVersion);

/**
 * The route's transform: a missing `org` and the body are checked together, so one 400 names
 * every field at fault. Unknown keys are allowed (Apple may add some); they are stored, not decoded.
 * The value of `org` is checked later, with the organization (receivePostback).
 */
export function checkPostbackRequest({ query, body }: { query: { org?: unknown }; body: unknown }): void {
  let problems: ValidationBody = { formErrors: [], fieldErrors: {} };
  try {
    checkBodySchema({ body });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    problems = error.body.error as ValidationBody;
  }
  const version = (body as { version?: unknown } | null)?.version;
  if (typeof version === 'string' && !isVersion(version)) problems.fieldErrors.version = [`must be one of ${SKAN_VERSIONS.join(', ')}`];
  const org = query.org;
  if (org === undefined || org === '') problems.fieldErrors.org = ['required: the organization id'];
  if (problems.formErrors.length > 0 || Object.keys(problems.fieldErrors).length > 0) {
    throw validationError(problems.fieldErrors, problems.formErrors);
  }
}

/** One answer for an `org` that is not an id and for an id no organization has. */
const UNKNOWN_ORGANIZATION = 'unknown organization';

/**
 * Verifies, decodes, links and stores one postback (docs/skan.md). A repeat of the organization's
 * transaction id answers the stored id and writes nothing; every refusal writes nothing.
 */
export async function receivePostback(deps: SkanDeps, orgId: string, body: SkanPostbackBody): Promise<{ ok: true; id: string }> {
  const postback = body as SkanPostbackBody & { version: SkanVersion };
  // The signature first: a refusal that came before it would tell who is an organization.
  const verified = verifySignature(postback, deps.publicKey);
  if (!verified && deps.verify) throw badRequest('invalid signature');
  if (!ORG_ID_PATTERN.test(orgId) || !(await repo.organizationExists(deps.db, orgId))) throw fieldError('org', UNKNOWN_ORGANIZATION);
  const decoded = decodePostback(postback);
  const match = sourceIdentifierMatch(decoded);
  const [appId, campaignId] = await Promise.all([
    decoded.appStoreId === null ? null : repo.findAppByAppStoreId(deps.db, orgId, canonicalAppStoreId(decoded.appStoreId)),
    match === null ? null : repo.findCampaignBySourceIdentifier(deps.db, orgId, match),
  ]);
  const inserted = await repo.insertPostback(deps.db, { id: newId(), orgId, appId, campaignId, decoded, verified, raw: body });
  // On a repeat the insert did nothing; this read runs after the winner committed, so it sees it.
  const id = inserted ?? (await repo.findPostbackId(deps.db, orgId, decoded.transactionId));
  if (id === undefined) throw new Error(`skan postback ${decoded.transactionId}: neither inserted nor found`);
  return { ok: true, id };
}

export function toPostbackResponse(row: SkanPostbackRow): SkanPostbackResponse {
  return {
    id: row.id,
    transaction_id: row.transaction_id,
    version: row.version,
    ad_network_id: row.ad_network_id,
    app_id: row.app_id,
    campaign_id: row.campaign_id,
    source_identifier: row.source_identifier,
    source_app_id: row.source_app_id,
    source_domain: row.source_domain,
    conversion_value: row.conversion_value,
    coarse_conversion_value: row.coarse_conversion_value,
    postback_sequence_index: row.postback_sequence_index,
    fidelity_type: row.fidelity_type,
    did_win: row.did_win,
    redownload: row.redownload,
    verified: row.verified,
    created_at: row.created_at.toISOString(),
  };
}

export function listSkanPostbacks({ db }: { db: Db }, orgId: string, query: ListSkanPostbacksQuery = {}): Promise<Page<SkanPostbackResponse>> {
  return readPage({
    keyset: repo.SKAN_POSTBACKS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listPostbacks(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toPostbackResponse,
  });
}
