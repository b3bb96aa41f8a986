import { attributionSettings, type WaterfallInput } from '../../src/attribution/attribution.model';
import { createOrganization } from '../../src/auth/accounts.service';
import type { Db } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import { createIpHasher } from '../../src/shared/crypto/ip-hash';
import { sdkApp } from '../support/sdk-fixtures';

/** The hasher the waterfall tests share with their fixtures (any secret will do, as long as it is one). */
export const ipHasher = createIpHasher('waterfall-test-secret-that-is-long-enough-0123');

/** The install time the tier tests reason from. */
export const AT = new Date('2026-03-10T12:00:00.000Z');

/** A fresh organization and app per test: the waterfall reads only its own organization. */
export async function tenant(db: Db, input: { platform?: string; settings?: Record<string, unknown> } = {}) {
  const orgId = await createOrganization(db, `Org ${newId()}`);
  const { appId } = await sdkApp(db, orgId, { platform: input.platform ?? 'android', settings: input.settings });
  return { orgId, appId };
}

export function waterfallInput(
  base: { orgId: string; appId: string },
  overrides: Partial<Omit<WaterfallInput, 'settings'>> & { settings?: Record<string, unknown> } = {},
): WaterfallInput {
  const { settings, ...rest } = overrides;
  return {
    orgId: base.orgId,
    appId: base.appId,
    platform: 'android',
    ip: null,
    osVersion: null,
    clickId: null,
    installReferrer: null,
    gclid: null,
    at: AT,
    after: null,
    settings: attributionSettings(settings ?? {}),
    ...rest,
  };
}
