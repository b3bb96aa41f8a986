import type { ApiKeyPrincipal } from '../auth/api-keys';
import { recordAudit } from '../auth/audit';
import type { SdkApp } from '../auth/sdk-keys';
import type { Db, Queryable } from '../db/db';
import { notFound } from '../http/errors';
import type { IpHasher } from '../shared/crypto/ip-hash';
import { newId } from '../shared/ids';
import { daysOf, parseSubject, subjectKey } from './erasure-subject';
import type { ErasureBody, ErasureCounts, ErasureStatus, ErasureView, Subject } from './erasure.model';
import { insertRequest, findRequest, type ClaimedRequest } from './erasure-requests.repo';
import { clicksFromIp, clicksNamingValue, eraseClicks, eraseDevice, eraseEventsNamingValue, eraseIpTraces, findInstalls } from './erasure-rows.repo';
import { deviceIdHash } from '../sdk/device-id';

export interface ErasureDeps {
  db: Db;
  /** The service secret: requests are known by a keyed hash of their subject. */
  secret: string;
}

interface Filing {
  orgId: string;
  subject: Subject;
  source: 'api' | 'sdk';
  apiKeyId: string | null;
  appId: string | null;
}

/** Files the request and its audit row in one transaction; a repeat of a pending one answers its id. */
async function file({ db, secret }: ErasureDeps, filing: Filing): Promise<{ id: string; status: ErasureStatus }> {
  const key = subjectKey(secret, filing.subject, filing.source === 'sdk' ? filing.appId : null);
  return db.transaction(async (tx) => {
    const filed = await insertRequest(tx, { id: newId(), subjectKey: key, ...filing });
    if (filed.created) {
      // The audit names the kind of subject, never its value.
      await recordAudit(
        tx,
        { orgId: filing.orgId, apiKeyId: filing.apiKeyId },
        { action: 'privacy.erasure.request', entity: 'erasure_request', entityId: filed.id, detail: { subject: filing.subject.kind, source: filing.source, app_id: filing.appId } },
      );
    }
    return { id: filed.id, status: filed.status };
  });
}

/** POST /api/v1/privacy/erasure: one subject, erased across the organization. */
export function requestErasure(deps: ErasureDeps, principal: ApiKeyPrincipal, body: ErasureBody) {
  return file(deps, { orgId: principal.orgId, subject: parseSubject(body), source: 'api', apiKeyId: principal.keyId, appId: null });
}

/** POST /api/sdk/v1/forget: the calling app's device, erased within that app. */
export function requestForget(deps: ErasureDeps, app: SdkApp, deviceId: string) {
  return file(deps, { orgId: app.orgId, subject: { kind: 'device_id', value: deviceIdHash(deviceId) }, source: 'sdk', apiKeyId: null, appId: app.appId });
}

export async function erasureStatus({ db }: { db: Queryable }, principal: ApiKeyPrincipal, id: string): Promise<ErasureView> {
  const found = await findRequest(db, principal.orgId, id);
  if (!found) throw notFound('erasure request not found');
  return found;
}

/** Adds one pass's counts to the request's, table by table. */
export function addCounts(into: ErasureCounts, more: ErasureCounts): ErasureCounts {
  const sum = { ...into };
  for (const [table, n] of Object.entries(more)) if (n > 0) sum[table] = (sum[table] ?? 0) + n;
  return sum;
}

/**
 * One pass over every store for the request's subject, in the caller's transaction. A pass is
 * safe to repeat: what it erased is gone, so a second finds only rows that landed since.
 */
export async function erasePass(tx: Queryable, ipHasher: IpHasher, request: Pick<ClaimedRequest, 'orgId' | 'subject' | 'scopeAppId'>): Promise<ErasureCounts> {
  const { orgId, subject, scopeAppId } = request;
  let counts: ErasureCounts = {};
  const clickIds: string[] = [];
  if (subject.kind === 'device_id' || subject.kind === 'install_id') {
    const device = await findInstalls(tx, orgId, scopeAppId, subject.kind === 'device_id' ? { deviceHash: subject.value } : { installId: subject.value });
    // A device's events and subscriptions may predate its install: its hash finds them too.
    if (subject.kind === 'device_id') device.deviceHashes = [...new Set([...device.deviceHashes, subject.value])];
    const erased = await eraseDevice(tx, orgId, scopeAppId, device);
    counts = addCounts(counts, erased.counts);
    clickIds.push(...device.clickIds, ...erased.clickIds);
  } else if (subject.kind === 'click_id') {
    clickIds.push(subject.value);
  } else if (subject.kind === 'advertising_id') {
    counts = addCounts(counts, await eraseEventsNamingValue(tx, orgId, subject.value));
    clickIds.push(...(await clicksNamingValue(tx, orgId, subject.value)));
  } else if (subject.kind === 'ip') {
    const dayHashes = daysOf(subject).map((day) => ipHasher.ipDay(subject.value, day));
    counts = addCounts(counts, await eraseIpTraces(tx, orgId, { ip: subject.value, fromDay: subject.fromDay, toDay: subject.toDay, dayHashes }));
    clickIds.push(...(await clicksFromIp(tx, orgId, subject.value, subject.fromDay, subject.toDay)));
  }
  return addCounts(counts, await eraseClicks(tx, orgId, [...new Set(clickIds)]));
}
