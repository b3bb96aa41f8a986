import '../../../test/support/slow-suite';
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { apiKeyOver } from '../../../test/support/over-http';
import { eventually } from '../../../test/support/wait';
import { e2eBackends, startTrackingServer } from '../../../test/e2e/tracking-support';
import { sdk } from './sdk';

const { createServerClient, IngestError, sendClickBatch, ServerApiError, signIngestBody, SIGNATURE_HEADER } = sdk;

// A real server process per backend: its boot opens a store and a DuckDB mirror.
setDefaultTimeout(180_000);

const INGEST_SECRET = 'an-ingest-secret-of-at-least-16-characters';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The client against the real server: every resource it covers written and read back with one
 * organization's key, another organization's key sees none of it, a bad body is a 400 and a
 * wrong key a 401; the ingest signature it makes is accepted and a wrong one refused.
 */
for (const backend of await e2eBackends()) {
  describe(`svc-server-sdk on a real server (${backend.name})`, async () => {
    const server = await startTrackingServer({ ...backend, env: { ...backend.env, INGEST_SECRET } });
    afterAll(() => server.stop());
    const svc = createServerClient({ baseUrl: server.url, apiKey: await apiKeyOver(server) });
    const other = createServerClient({ baseUrl: server.url, apiKey: await apiKeyOver(server) });

    const app = await svc.apps.create({ name: 'Acme Shop', platform: 'android', bundle_id: 'com.acme.shop' });
    const campaign = await svc.campaigns.create({ name: 'Spring sale', external_id: `ext-${crypto.randomUUID()}`, partner: 'google_ads', app_id: app.id as string });
    const link = await svc.links.create({ destination: 'https://shop.example.com/spring', campaign_id: campaign.id as string });
    const click = await fetch(`${server.url}/c/${link.slug}`, { redirect: 'manual', headers: { 'user-agent': CHROME } });
    const clickId = new URL(click.headers.get('location')!).searchParams.get('svc_click_id')!;

    test('apps, campaigns and links: created, listed, read and changed', async () => {
      expect(app).toMatchObject({ name: 'Acme Shop', platform: 'android' });
      expect(typeof app.sdk_key).toBe('string');
      expect(await svc.apps.get(app.id as string)).toMatchObject({ id: app.id, name: 'Acme Shop' });
      expect(campaign).toMatchObject({ name: 'Spring sale', partner: 'google_ads' });
      expect(link).toMatchObject({ destination: 'https://shop.example.com/spring', campaign_id: campaign.id });
      const links = (await svc.links.list({ limit: 10 })) as { data: { id: string }[] };
      expect(links.data.map((row) => row.id)).toContain(link.id as string);
      expect(await svc.links.update(link.id as string, { status: 'paused' })).toMatchObject({ id: link.id, status: 'paused' });
      expect(await svc.links.update(link.id as string, { status: 'active' })).toMatchObject({ status: 'active' });
      expect(await svc.campaigns.update(campaign.id as string, { name: 'Spring sale 2' })).toMatchObject({ name: 'Spring sale 2' });
      expect(((await svc.campaigns.list()) as { data: { id: string }[] }).data.map((row) => row.id)).toContain(campaign.id as string);
    });

    test('a conversion on the click is matched; a repeat of its order_id updates it; a postback is stored', async () => {
      const first = await svc.conversions.create({ click_id: clickId, event: 'purchase', value: 20, currency: 'USD', order_id: 'order-1' });
      expect(first).toMatchObject({ ok: true, matched: true });
      const again = await svc.conversions.create({ click_id: clickId, event: 'purchase', value: 25, currency: 'USD', order_id: 'order-1' });
      expect(again.id).toBe(first.id);
      const postback = await svc.postbacks.send({ click_id: clickId, event: 'lead', order_id: 'lead-1' });
      expect(postback).toMatchObject({ ok: true, matched: true });
      const { data } = await svc.conversions.list({ limit: 10 });
      expect(data.map((row) => [row.eventName, row.value, row.clickId]).sort()).toEqual([
        ['lead', null, clickId],
        ['purchase', 25, clickId],
      ]);
    });

    test('postback destinations: created, listed, deleted', async () => {
      const destination = await svc.postbacks.destinations.create({ url: 'https://8.8.8.8/pb?cid={click_id}', events: ['never-sent'] });
      expect(typeof destination.id).toBe('string');
      expect(JSON.stringify(await svc.postbacks.destinations.list())).toContain(destination.id as string);
      await svc.postbacks.destinations.delete(destination.id as string);
      expect(JSON.stringify(await svc.postbacks.destinations.list())).not.toContain(destination.id as string);
    });

    test('costs, impressions and TV airings are imported', async () => {
      expect(await svc.costs.import([{ campaign_id: campaign.id as string, day: today(), spend: 40, currency: 'USD' }])).toEqual({ ok: true, upserted: 1 });
      expect(await svc.impressions.import([{ campaign_id: campaign.id as string, ip: '203.0.113.7', partner: 'google_ads' }])).toMatchObject({ accepted: 1 });
      const airings = await svc.tvAirings.import([{ network: 'ACME TV', aired_at: new Date(Date.now() - 10 * 60_000).toISOString(), window_min: 2, campaign_id: campaign.id as string }]);
      expect(airings).toMatchObject({ accepted: 1 });
      expect(JSON.stringify(await svc.tvAirings.list({ limit: 5 }))).toContain('ACME TV');
    });

    test('clicks are listed and exported; another organization sees none of them', async () => {
      const { data } = await eventually(async () => {
        const page = await svc.clicks.list({ limit: 10 });
        return page.data.some((row) => row.id === clickId) && page;
      });
      expect(data.find((row) => row.id === clickId)).toMatchObject({ nextHopUrl: expect.stringContaining(`svc_click_id=${clickId}`) });
      const exported = await svc.clicks.export({ since: today() });
      expect(exported.complete).toBe(true);
      expect(exported.data.map((row) => row.id)).toContain(clickId);
      expect((await other.clicks.export({ since: today() })).data).toEqual([]);
    });

    test('reports: the pivot, the breakdown and the cohorts read what was written', async () => {
      const range = { from: today(), to: today() };
      const pivot = await eventually(async () => {
        const report = await svc.reports.pivot(range);
        return report.rows.some((row) => row.campaign_id === campaign.id && row.spend === 40 && row.conversions === 2) && report;
      });
      expect(pivot.group_by).toEqual(['day', 'campaign']);
      const breakdown = await svc.reports.breakdown({ ...range, group_by: 'campaign' });
      expect(breakdown.rows.find((row) => row.campaign_id === campaign.id)).toMatchObject({ spend: 40, revenue: 25 });
      const cohorts = await svc.reports.cohorts({ ...range, days: '0,1' });
      expect(cohorts).toMatchObject({ from: range.from, to: range.to });
      expect((await other.reports.breakdown({ ...range, group_by: 'campaign' })).rows.some((row) => row.campaign_id === campaign.id)).toBe(false);
    });

    test("another organization's key reads the link, campaign and app as unknown", async () => {
      for (const read of [() => other.links.get(link.id as string), () => other.campaigns.get(campaign.id as string), () => other.apps.get(app.id as string)]) {
        await expect(read()).rejects.toMatchObject({ status: 404 });
      }
    });

    test('a bad body is a 400 in the validation shape; a wrong key is a 401', async () => {
      const failure = await svc.costs.import([{ campaign_id: campaign.id as string, day: 'yesterday', spend: -1 }]).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServerApiError);
      expect(failure).toMatchObject({ status: 400, body: { error: { fieldErrors: expect.any(Object) } } });
      const stranger = createServerClient({ baseUrl: server.url, apiKey: 'svc_live_00000000000000000000000000000000' });
      await expect(stranger.links.list()).rejects.toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    });

    test('the ingest signature the helper makes is accepted; the clicks land; a wrong secret is refused', async () => {
      const ingestedId = `edge-${crypto.randomUUID().slice(0, 8)}`;
      const row = { slug: link.slug as string, click_id: ingestedId, ip: '203.0.113.8', user_agent: CHROME, ts: new Date().toISOString() };
      expect(await sendClickBatch({ baseUrl: server.url, secret: INGEST_SECRET, events: [row] })).toEqual({ accepted: 1, rejected: [] });
      await eventually(async () => (await svc.clicks.list({ limit: 20 })).data.some((click) => click.id === ingestedId));

      const refused = await sendClickBatch({ baseUrl: server.url, secret: 'not-the-ingest-secret-at-all', events: [{ ...row, click_id: 'edge-refused' }] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(IngestError);
      expect(refused).toMatchObject({ status: 401, body: { error: 'unauthorized' } });

      // The signature covers the bytes: the same rows encoded otherwise need their own.
      const raw = JSON.stringify({ events: [{ ...row, click_id: 'edge-respaced' }] });
      const signature = await signIngestBody(INGEST_SECRET, raw);
      const respaced = await fetch(`${server.url}/api/ingest/clicks`, { method: 'POST', headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature }, body: JSON.stringify(JSON.parse(raw), null, 1) });
      expect(respaced.status).toBe(401);
    });
  });
}
