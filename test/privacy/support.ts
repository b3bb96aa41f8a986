import { expect } from 'bun:test';
import type { TestApp } from '../support/app';
import { TEST_TRACKING_URL, body } from '../support/app';
import { clickIdOf } from '../support/clicks';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { sdkApp } from '../support/sdk-fixtures';
import { installIdOf, sdkCall } from '../sdk/support';
import { deviceIdHash } from '../../src/sdk/device-id';
import { newId } from '../../src/shared/ids';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/**
 * A person with a trace in every store: two clicks through /c (journal, writer, Postgres), an
 * install attributed to the first, two events and the subscription's, a subscription, a push token, a re-open from the
 * second click and a conversion on the first. The device id is raw, as an app may send it.
 */
export async function personWithData(t: TestApp, ip = '198.51.100.23') {
  const { db } = t;
  const org = await orgWithKey(db);
  const app = await sdkApp(db, org.orgId, { platform: 'ios' });
  const { campaignId } = await insertCampaign(db, org.orgId, { appId: app.appId });
  const { slug } = await insertLink(db, org.orgId, { campaignId });
  const click = async () => {
    const response = await t.request(`${TEST_TRACKING_URL}/c/${slug}?idfa=AD-${newId()}`, { headers: { 'user-agent': IPHONE, 'x-forwarded-for': ip } });
    expect(response.status).toBe(302);
    return clickIdOf(response.headers.get('location')!);
  };
  const clickIds = [await click()];
  await t.services.clickPipeline.flush();
  const call = sdkCall(t, app.sdkKey, ip);
  const deviceId = `IDFV-${newId()}`;
  const installId = await installIdOf((path, json) => call(path, { ...(json as object), click_id: clickIds[0] }), deviceId, 'ios');
  // The re-open's click comes after the install, as a retargeting click does.
  clickIds.push(await click());
  await t.services.clickPipeline.flush();
  const ok = async (response: Promise<Response>) => {
    const answered = await response;
    if (answered.status >= 300) throw new Error(`answered ${answered.status}: ${await answered.text()}`);
    return body(answered);
  };
  await ok(call('events', { device_id: deviceId, events: [{ name: 'purchase', value: 4.99, currency: 'USD' }, { name: 'level_complete' }] }));
  const pushToken = `apns-${newId()}`;
  await ok(call('push-token', { device_id: deviceId, push_token: pushToken, platform: 'ios' }));
  const originalTransactionId = `otx-${newId()}`;
  const subscription = await ok(call('subscription', { device_id: deviceId, install_id: installId, store: 'apple', original_transaction_id: originalTransactionId, product_id: 'pro.monthly' }));
  await ok(call('open', { device_id: deviceId, click_id: clickIds[1], url: null }));
  const conversion = await ok(t.request('/api/v1/conversions', { method: 'POST', headers: org.auth, json: { click_id: clickIds[0], event: 'purchase', order_id: `o-${newId()}`, value: 10, currency: 'USD' } }));
  return {
    ...org,
    ...app,
    ip,
    deviceId,
    deviceHash: deviceIdHash(deviceId),
    installId,
    clickIds,
    pushToken,
    originalTransactionId,
    subscriptionId: subscription.subscription_id as string,
    conversionId: conversion.id as string,
  };
}

/** Every text-like column of every table in the DuckDB mirror holding `needle`. */
export async function mirrorTablesContaining(t: TestApp, needle: string): Promise<string[]> {
  const columns = await t.services.mirror.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'main' AND data_type IN ('VARCHAR', 'JSON') AND table_name NOT LIKE '\\_%' ESCAPE '\\'`,
  );
  if (columns.length < 20) throw new Error(`only ${columns.length} text columns in the mirror: the search would prove nothing`);
  const hits: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows = await t.services.mirror.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM "${table_name}" WHERE strpos(CAST("${column_name}" AS VARCHAR), $1) > 0`, [needle]);
    if (Number(rows[0]?.n ?? 0) > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}
