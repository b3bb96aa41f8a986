import type { ApiKeyPrincipal } from '../auth/api-keys';
import { recordAudit } from '../auth/audit';
import { randomToken } from '../shared/crypto/secrets';
import type { Db } from '../db/db';
import { fieldError, notFound, validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { errorMessage } from '../shared/error-message';
import { newId } from '../shared/ids';
import { resolveTarget, type Lookup } from '../shared/net/safe-target';
import { DEFAULT_POSTBACK_LIST_LIMIT, toDelivery, toDestination, type Delivery, type DeliveryStatus, type Destination, type DestinationInput } from './postbacks.model';
import { deleteDestination, DELIVERIES_KEYSET, DESTINATIONS_KEYSET, insertDestinationWithinCap, listDeliveries, listDestinations } from './postbacks.repo';
import { templateProblems } from './postback-template';

const DESTINATION_REFUSED_AT_CREATION = 'destination refused: the host must be a public address, or a name resolving only to public addresses';

/** Live destinations per organization: bounds how many hosts one organization can have the service call. */
export const MAX_DESTINATIONS_PER_ORG = 20;
const CAP_REACHED = `an organization can have at most ${MAX_DESTINATIONS_PER_ORG} postback destinations; delete one to add another`;

export interface PostbacksDeps {
  db: Db;
  allowPrivate: boolean;
  lookup?: Lookup;
}

/**
 * Creates a destination after checking its template and host (a non-public address is refused
 * here and on every delivery), unless it would be the 21st live one. The secret is generated when
 * not given and returned only now.
 */
export async function createDestination(
  { db, allowPrivate, lookup }: PostbacksDeps,
  principal: ApiKeyPrincipal,
  input: DestinationInput,
): Promise<Destination & { secret: string }> {
  const problems = templateProblems(input.url);
  if (problems.length > 0) throw validationError({ url: problems });
  if (!allowPrivate) {
    try {
      await resolveTarget(new URL(input.url.replace(/\{[^{}]*\}/g, 'x')), { allowPrivate, lookup });
    } catch (error) {
      // One answer whatever the reason: the caller must not learn how names resolve here.
      console.warn(`postback destination refused for organization ${principal.orgId}: ${errorMessage(error)}`);
      throw fieldError('url', DESTINATION_REFUSED_AT_CREATION);
    }
  }
  const secret = input.secret ?? randomToken(40);
  const row = await db.transaction(async (tx) => {
    const created = await insertDestinationWithinCap(
      tx,
      { id: newId(), orgId: principal.orgId, url: input.url, method: input.method ?? 'GET', events: input.events ?? null, secret },
      MAX_DESTINATIONS_PER_ORG,
    );
    if (!created) throw validationError({}, [CAP_REACHED]);
    await recordAudit(tx, { orgId: principal.orgId, apiKeyId: principal.keyId }, {
      action: 'create',
      entity: 'postback_destination',
      entityId: created.id,
      detail: { url: created.url, method: created.method, events: created.events },
    });
    return created;
  });
  return { ...toDestination(row), secret };
}

export function listOrgDestinations({ db }: Pick<PostbacksDeps, 'db'>, orgId: string, query: { limit?: number; cursor?: string }): Promise<Page<Destination>> {
  return readPage({
    keyset: DESTINATIONS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_POSTBACK_LIST_LIMIT,
    fetch: (page) => listDestinations(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toDestination,
  });
}

/** Deletes a destination of the caller's organization; what it still owed is cancelled. */
export async function removeDestination({ db }: Pick<PostbacksDeps, 'db'>, principal: ApiKeyPrincipal, id: string): Promise<{ ok: true; id: string }> {
  const removed = await db.transaction(async (tx) => {
    const result = await deleteDestination(tx, principal.orgId, id);
    if (result) {
      await recordAudit(tx, { orgId: principal.orgId, apiKeyId: principal.keyId }, {
        action: 'delete',
        entity: 'postback_destination',
        entityId: id,
        detail: { cancelledDeliveries: result.cancelled },
      });
    }
    return result;
  });
  if (!removed) throw notFound('destination not found');
  return { ok: true, id };
}

export async function listOrgDeliveries(
  { db }: Pick<PostbacksDeps, 'db'>,
  orgId: string,
  filter: { status?: DeliveryStatus; conversionId?: string; destinationId?: string },
  query: { limit?: number; cursor?: string },
): Promise<Page<Delivery>> {
  return readPage({
    keyset: DELIVERIES_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_POSTBACK_LIST_LIMIT,
    fetch: (page) => listDeliveries(db, orgId, filter, page),
    keyOf: (row) => [row.id],
    view: toDelivery,
  });
}
