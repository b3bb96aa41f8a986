import { readFileSync } from 'node:fs';
import type { Config } from '../config/config';
import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import { createApnsClient } from './apns.client';
import { createUninstallChecker, DEFAULT_CHECKER_OPTIONS, HOUR_MS, type UninstallChecker } from './checker';
import { createFcmClient } from './fcm.client';
import type { PushClient } from './push.model';
import { readApnsKey, readFcmAccount } from '../config/credential-files';

/** How long one provider call (a push, a token exchange) may take. */
export const PUSH_TIMEOUT_MS = 10_000;

type PushConfig = Pick<Config, 'uninstallCheckHours' | 'apns' | 'fcm' | 'googleOauthTokenUrl'>;

/** The providers the configuration names; none when the checker is off. */
export function pushClientsFor(config: PushConfig, timeoutMs = PUSH_TIMEOUT_MS): PushClient[] {
  if (config.uninstallCheckHours === 0) return [];
  const clients: PushClient[] = [];
  const { apns, fcm } = config;
  if (apns) {
    const ca = apns.caPath ? readFileSync(apns.caPath, 'utf8') : undefined;
    clients.push(createApnsClient({ keyPem: readApnsKey(apns.keyPath), keyId: apns.keyId, teamId: apns.teamId, url: apns.url, ca, timeoutMs }));
  }
  if (fcm) clients.push(createFcmClient({ account: readFcmAccount(fcm.credentialsPath), url: fcm.url, tokenUrl: config.googleOauthTokenUrl, timeoutMs }));
  return clients;
}

/** The node's checker as the configuration sets it up (services.ts starts it with the other workers). */
export function createUninstallCheckerFor(config: PushConfig, deps: { db: Db; clock: Clock }): UninstallChecker {
  const intervalMs = config.uninstallCheckHours * HOUR_MS;
  return createUninstallChecker(
    { ...deps, clients: pushClientsFor(config) },
    { ...DEFAULT_CHECKER_OPTIONS, intervalMs, roundEveryMs: Math.min(intervalMs, HOUR_MS) },
  );
}
