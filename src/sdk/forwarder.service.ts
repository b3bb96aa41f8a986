import type { Config } from '../config/config';
import type { Queryable } from '../db/db';
import { recordAudit } from '../auth/audit';
import { fieldError, notFound } from '../http/errors';
import { appInOrg, findForwarder, upsertForwarder, type ForwarderRow } from './forwarder.repo';
import { assertAcceptableUrl, fetchPinned, systemLookup, UnsafeTargetError, type Lookup } from '../shared/net/safe-target';

/** One install for an ad platform's app-conversion API. Held in memory for the send only. */
export interface ForwardJob {
  orgId: string;
  appId: string;
  payload: Record<string, unknown>;
}

/**
 * Sends installs to the app's configured forwarder without delaying the SDK's answer. Nothing is
 * persisted: a crash before the send loses that forward, by design, because keeping it would mean
 * storing the advertising id it carries.
 */
export interface InstallForwarder {
  forwardInstall(job: ForwardJob): void;
  /** Resolves when every send under way has finished (tests, shutdown). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export interface ForwarderOptions {
  db: Queryable;
  config: Pick<Config, 'postbackAllowPrivate'>;
  lookup?: Lookup;
  timeoutMs?: number;
  /** Waits before the 2nd, 3rd ... attempt; retried on transport errors, 408, 429 and 5xx. */
  retryDelaysMs?: readonly number[];
  /** Sends in flight beyond this are dropped (and logged) rather than queued without bound. */
  maxInFlight?: number;
}

const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;

export function createInstallForwarder(options: ForwarderOptions): InstallForwarder {
  const { db, config } = options;
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? 5000;
  const delays = options.retryDelaysMs ?? [1000, 4000];
  const maxInFlight = options.maxInFlight ?? 1000;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;

  async function attempt(target: ForwarderRow, url: URL, body: string): Promise<'done' | 'retry'> {
    const response = await fetchPinned(
      url,
      { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body },
      { allowPrivate: config.postbackAllowPrivate, lookup, signal: AbortSignal.timeout(timeoutMs) },
    );
    await response.body?.cancel();
    if (response.ok) return 'done';
    if (RETRYABLE(response.status)) return 'retry';
    // Redirects are not followed (they could lead anywhere) and other 4xx will not change on retry.
    console.warn(`install forwarder for app ${target.app_id}: answered ${response.status}, not retried`);
    return 'done';
  }

  async function send(job: ForwardJob): Promise<void> {
    const target = await findForwarder(db, job.orgId, job.appId);
    if (!target?.enabled) return;
    const body = JSON.stringify(job.payload);
    for (let index = 0; ; index += 1) {
      let outcome: 'done' | 'retry';
      try {
        outcome = await attempt(target, assertAcceptableUrl(target.url, config.postbackAllowPrivate), body);
      } catch (error) {
        if (error instanceof UnsafeTargetError) {
          console.warn(`install forwarder for app ${job.appId}: refused: ${error.message}`);
          return;
        }
        outcome = 'retry';
      }
      const delay = delays[index];
      if (outcome === 'done') return;
      if (delay === undefined || stopping) {
        console.warn(`install forwarder for app ${job.appId}: gave up after ${index + 1} attempts`);
        return;
      }
      await Bun.sleep(delay);
      if (stopping) return;
    }
  }

  return {
    forwardInstall(job) {
      if (stopping) return;
      if (inFlight.size >= maxInFlight) {
        console.warn(`install forwarder: ${maxInFlight} sends in flight, dropping one for app ${job.appId}`);
        return;
      }
      const running = send(job)
        .catch((error) => console.warn(`install forwarder for app ${job.appId}: ${error instanceof Error ? error.message : 'failed'}`))
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopping = true;
      await this.drain();
    },
  };
}

export interface ForwarderView {
  app_id: string;
  url: string;
  enabled: boolean;
  /** Header values are credentials: they are written, never read back. */
  header_names: string[];
  updated_at: string;
}

export function forwarderView(row: ForwarderRow): ForwarderView {
  return { app_id: row.app_id, url: row.url, enabled: row.enabled, header_names: Object.keys(row.headers ?? {}).sort(), updated_at: new Date(row.updated_at).toISOString() };
}

/** Headers the transport sets itself; a configured value for them would break or smuggle the request. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'connection', 'transfer-encoding', 'te', 'upgrade', 'expect']);

/** PUT /api/v1/apps/{id}/forwarder: validate, replace, audit in the same transaction. */
export async function configureForwarder(
  deps: { db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> }; config: Pick<Config, 'postbackAllowPrivate'> },
  input: { orgId: string; apiKeyId: string; appId: string; url: string; enabled: boolean; headers: Record<string, string> },
): Promise<ForwarderView> {
  try {
    assertAcceptableUrl(input.url, deps.config.postbackAllowPrivate);
  } catch (error) {
    if (error instanceof UnsafeTargetError) throw fieldError('url', error.message);
    throw error;
  }
  for (const name of Object.keys(input.headers)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw fieldError(`headers.${name}`, 'is set by the service');
  }
  return deps.db.transaction(async (tx) => {
    if (!(await appInOrg(tx, input.orgId, input.appId))) throw notFound('app not found');
    const row = await upsertForwarder(tx, { orgId: input.orgId, appId: input.appId, url: input.url, headers: input.headers, enabled: input.enabled });
    await recordAudit(tx, { orgId: input.orgId, apiKeyId: input.apiKeyId }, {
      action: 'update',
      entity: 'app_forwarder',
      entityId: input.appId,
      // The host only: a URL's query may carry a credential, and the audit log is widely readable.
      detail: { host: new URL(input.url).host, enabled: input.enabled, header_names: Object.keys(input.headers).sort() },
    });
    return forwarderView(row);
  });
}
