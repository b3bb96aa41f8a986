import '../../support/slow-suite';
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createSecretBox } from '../../../src/shared/crypto/secret-box';
import { body, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { expectSecurityHeaders } from '../../support/http';
import { eventually } from '../../support/wait';
import { startFakeGoogleAds } from './fake-google-ads';
import { connectGoogleAds, daysAgo, insertAdCampaign, insertRiskyClick, registerAccount, sync, type Account } from '../support';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

for (const backend of backends()) {
  describe(`POST /api/protect/sync on ${backend.name}`, async () => {
    const db = await backend.create();
    const fake = startFakeGoogleAds();
    afterAll(() => fake.stop());
    // The blocklist is read on the mirror; it copies only when the sync catches it up.
    const t = await testApp(db, { ...fake.env, MIRROR_INTERVAL_MS: '0' }, { workers: false });

    /** An organization connected to the fake, with one active Google Ads campaign. */
    const connectedAccount = async () => {
      const account = await registerAccount(t);
      const customerId = await connectGoogleAds(t, account, fake);
      const campaign = await insertAdCampaign(db, account.orgId);
      return { account, customerId, campaign, externalId: campaign.externalId! };
    };
    const pushed = (customerId: string, externalId: string) => fake.criteria(customerId, externalId).map((criterion) => criterion.ipAddress).sort();
    const recorded = async (account: Account) =>
      db.query<{ campaign_id: string; ip_block: string; criterion_resource_name: string }>(
        'SELECT campaign_id, ip_block, criterion_resource_name FROM ip_exclusions WHERE org_id = $1 ORDER BY campaign_id, ip_block',
        [account.orgId],
      );
    const syncOk = async (account: Account) => {
      const res = await sync(t, account);
      expect(res.status).toBe(200);
      return body(res);
    };

    describe('happy', () => {
      test('pushes the blocklist to every active campaign with an id, and records what Google accepted', async () => {
        const { account, customerId, campaign, externalId } = await connectedAccount();
        const second = await insertAdCampaign(db, account.orgId);
        const paused = await insertAdCampaign(db, account.orgId, { status: 'paused' });
        await insertAdCampaign(db, account.orgId, { externalId: null });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.10.1', score: 90 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.10.2', score: 60 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.10.2', score: 70, at: daysAgo(3) });

        const res = await sync(t, account);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({ campaigns: 2, added: 4, removed: 0, kept: 0, skipped: 0, errors: [] });

        expect(pushed(customerId, externalId)).toEqual(['45.33.10.1', '45.33.10.2']);
        expect(pushed(customerId, second.externalId!)).toEqual(['45.33.10.1', '45.33.10.2']);
        const mutates = fake.callsFor(customerId, 'mutate');
        expect(mutates.length).toBe(2);
        // Highest score first; each operation a negative IP block on that campaign.
        expect(mutates[0]!.body.operations).toEqual([
          { create: { campaign: `customers/${customerId}/campaigns/${externalId}`, negative: true, ipBlock: { ipAddress: '45.33.10.1' } } },
          { create: { campaign: `customers/${customerId}/campaigns/${externalId}`, negative: true, ipBlock: { ipAddress: '45.33.10.2' } } },
        ]);
        expect(mutates[0]!.headers['developer-token']).toBe(fake.credentials.developerToken);
        expect(mutates[0]!.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
        // The paused campaign and the one without an id are never read.
        const searched = fake.callsFor(customerId, 'search').map((call) => call.body.query.match(/campaign\.id = ([0-9]+)/)[1]);
        expect(searched.sort()).toEqual([externalId, second.externalId!].sort());
        expect(searched).not.toContain(paused.externalId);

        const rows = await recorded(account);
        expect(rows.length).toBe(4);
        const onGoogle = new Set([...fake.criteria(customerId, externalId), ...fake.criteria(customerId, second.externalId!)].map((criterion) => criterion.resourceName));
        expect(rows.every((row) => onGoogle.has(row.criterion_resource_name))).toBe(true);
        expect(rows.filter((row) => row.campaign_id === campaign.id).map((row) => row.ip_block)).toEqual(['45.33.10.1', '45.33.10.2']);

        const audit = await db.query<{ entity_id: string; detail: any }>("SELECT entity_id, detail FROM audit_log WHERE org_id = $1 AND action = 'sync' ORDER BY entity_id", [account.orgId]);
        expect(audit.map((row) => row.entity_id).sort()).toEqual([campaign.id, second.id].sort());
        expect(audit[0]!.detail).toMatchObject({ provider: 'google_ads', added: 2, removed: 0 });
      });

      test('a second sync with nothing new reads but sends no mutate', async () => {
        const { account, customerId } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.11.1', score: 80 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.11.2', score: 55 });
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 2, kept: 0 });
        const mutatesBefore = fake.callsFor(customerId, 'mutate').length;
        const rowsBefore = await recorded(account);
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 0, removed: 0, kept: 2, skipped: 0, errors: [] });
        expect(fake.callsFor(customerId, 'mutate').length).toBe(mutatesBefore);
        expect(await recorded(account)).toEqual(rowsBefore);
      });

      test('an address that fell off the list is removed; only ours: the advertiser’s own criteria stay', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        const old = await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.12.1', score: 90 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.12.2', score: 80 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.12.3', score: 70 });
        const theirsOffList = fake.addOwnCriterion(customerId, externalId, '81.2.69.160');
        const theirsOnList = fake.addOwnCriterion(customerId, externalId, '45.33.12.3/32');
        expect(await syncOk(account)).toMatchObject({ added: 2, kept: 1, removed: 0 });

        await db.query('UPDATE clicks SET created_at = $2::timestamptz WHERE id = $1', [old, daysAgo(31).toISOString()]);
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 0, removed: 1, kept: 2, skipped: 0, errors: [] });
        const last = fake.callsFor(customerId, 'mutate').at(-1)!;
        expect(last.body.operations.length).toBe(1);
        expect(last.body.operations[0].remove).toBeString();
        expect(pushed(customerId, externalId)).toEqual(['45.33.12.2', '45.33.12.3/32', '81.2.69.160']);
        expect(fake.criteria(customerId, externalId).map((criterion) => criterion.resourceName)).toEqual(expect.arrayContaining([theirsOffList, theirsOnList]));
        expect((await recorded(account)).map((row) => row.ip_block)).toEqual(['45.33.12.2']);

        // Ours deleted by hand in Google Ads: pushed again while it is on the list, and recorded anew.
        const ours = (await recorded(account))[0]!;
        fake.deleteCriterion(customerId, ours.criterion_resource_name);
        expect(await syncOk(account)).toMatchObject({ added: 1, removed: 0, kept: 1 });
        const again = (await recorded(account))[0]!;
        expect(again.ip_block).toBe('45.33.12.2');
        expect(again.criterion_resource_name).not.toBe(ours.criterion_resource_name);
        expect(fake.criteria(customerId, externalId).some((criterion) => criterion.resourceName === again.criterion_resource_name)).toBe(true);
      });

      test('a click stored in Postgres just before a sync is on its list: the mirror is caught up first', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.15.1', score: 80 });
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 1 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.15.2', score: 90, at: new Date() });
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 1, removed: 0, kept: 1, skipped: 0, errors: [] });
        expect(fake.callsFor(customerId, 'mutate').at(-1)!.body.operations).toEqual([
          { create: { campaign: `customers/${customerId}/campaigns/${externalId}`, negative: true, ipBlock: { ipAddress: '45.33.15.2' } } },
        ]);
        expect(pushed(customerId, externalId)).toEqual(['45.33.15.1', '45.33.15.2']);
      });

      test('an IPv6 client is excluded as its /64, one entry per /64', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '2a00:1450:4001:81c::1', score: 60 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '2a00:1450:4001:81c:ffff::2', score: 85 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '2a00:1450:4001:81d::1', score: 70 });
        expect(await syncOk(account)).toMatchObject({ added: 2 });
        const creates = fake.callsFor(customerId, 'mutate')[0]!.body.operations.map((operation: any) => operation.create.ipBlock.ipAddress);
        expect(creates).toEqual(['2a00:1450:4001:81c::/64', '2a00:1450:4001:81d::/64']);
        expect(pushed(customerId, externalId)).toEqual(['2a00:1450:4001:81c::/64', '2a00:1450:4001:81d::/64']);
      });

      test('an entry inside the advertiser’s own range is kept, not sent', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        fake.addOwnCriterion(customerId, externalId, '45.33.13.0/24');
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.13.9', score: 90 });
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 0, removed: 0, kept: 1, skipped: 0, errors: [] });
        expect(fake.callsFor(customerId, 'mutate')).toEqual([]);
      });

      test('an organization without campaigns to sync answers zeros and calls nobody', async () => {
        const account = await registerAccount(t);
        const customerId = await connectGoogleAds(t, account, fake);
        await insertAdCampaign(db, account.orgId, { status: 'paused' });
        const tokenCalls = fake.calls.filter((call) => call.kind === 'token').length;
        expect(await syncOk(account)).toEqual({ campaigns: 0, added: 0, removed: 0, kept: 0, skipped: 0, errors: [] });
        expect(fake.callsFor(customerId)).toEqual([]);
        expect(fake.calls.filter((call) => call.kind === 'token').length).toBe(tokenCalls);
      });

      test('a manager account signs in with login-customer-id', async () => {
        const account = await registerAccount(t);
        const customerId = await connectGoogleAds(t, account, fake, { login_customer_id: '555-444-3333' });
        fake.requireLoginCustomer(customerId, '5554443333');
        const { externalId } = await insertAdCampaign(db, account.orgId);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.14.1', score: 90 });
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 1, errors: [] });
        expect(pushed(customerId, externalId!)).toEqual(['45.33.14.1']);
        expect(fake.callsFor(customerId).every((call) => call.headers['login-customer-id'] === '5554443333')).toBe(true);
      });
    });

    describe('what is on the list', () => {
      test('verified crawlers, clicks under the threshold, non-public addresses and old clicks are never pushed', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '66.249.64.1', score: 100, isBot: true });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.20.1', score: 49 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.20.2', score: 50 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '10.1.2.3', score: 100 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '203.0.113.7', score: 100 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '2001:db8::1', score: 100 });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.20.3', score: 100, at: daysAgo(31) });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.20.4', score: 100, at: daysAgo(29) });
        expect(await syncOk(account)).toMatchObject({ added: 2 });
        expect(pushed(customerId, externalId)).toEqual(['45.33.20.2', '45.33.20.4']);

        // The organization's own threshold decides: raised to 80, the 50 leaves the list.
        await db.query('UPDATE organizations SET invalid_threshold = 80 WHERE id = $1', [account.orgId]);
        expect(await syncOk(account)).toMatchObject({ added: 0, removed: 1, kept: 1 });
        expect(pushed(customerId, externalId)).toEqual(['45.33.20.4']);
      });

      test('the cap of 500: the advertiser’s own criteria count; the top of the list by score, then recency, fills the rest', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        for (let index = 0; index < 497; index += 1) fake.addOwnCriterion(customerId, externalId, `81.${index >> 8}.${index & 255}.1`);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.1', score: 60, at: daysAgo(1) });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.2', score: 60, at: daysAgo(2) });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.3', score: 95, at: daysAgo(20) });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.4', score: 60, at: daysAgo(5) });
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.5', score: 55, at: daysAgo(0.5) });
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 3, removed: 0, kept: 0, skipped: 2, errors: [] });
        expect(fake.callsFor(customerId, 'mutate')[0]!.body.operations.map((operation: any) => operation.create.ipBlock.ipAddress)).toEqual(['45.33.30.3', '45.33.30.1', '45.33.30.2']);
        expect(fake.criteria(customerId, externalId).length).toBe(500);

        // A worse offender appears: it takes the place of the lowest entry of ours.
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.30.9', score: 99 });
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 1, removed: 1, kept: 2, skipped: 3, errors: [] });
        expect(fake.criteria(customerId, externalId).length).toBe(500);
        expect(pushed(customerId, externalId).filter((ip) => ip.startsWith('45.'))).toEqual(['45.33.30.1', '45.33.30.3', '45.33.30.9']);
      });

      test('the cap of 500 on an empty campaign: 500 pushed in priority order, the rest skipped', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        // 503 addresses: three old ones of score 100, then 500 of score 70, newest first.
        await db.query(
          `INSERT INTO clicks (id, org_id, created_at, next_hop_url, ip, risk_score)
           SELECT $1 || '-' || g, $1, now() - make_interval(mins => g + 1), 'https://shop.example.com/', '46.0.' || (g / 256) || '.' || (g % 256), 70
           FROM generate_series(0, 499) AS g`,
          [account.orgId],
        );
        // Same score and time: the block decides, for a stable order.
        const tenDaysAgo = daysAgo(10);
        for (const ip of ['46.9.0.3', '46.9.0.1', '46.9.0.2']) await insertRiskyClick(db, { orgId: account.orgId, ip, score: 100, at: tenDaysAgo });
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 500, removed: 0, kept: 0, skipped: 3, errors: [] });
        const sent = fake.callsFor(customerId, 'mutate')[0]!.body.operations.map((operation: any) => operation.create.ipBlock.ipAddress);
        expect(sent.slice(0, 4)).toEqual(['46.9.0.1', '46.9.0.2', '46.9.0.3', '46.0.0.0']);
        expect(sent.at(-1)).toBe('46.0.1.240');
        const all = pushed(customerId, externalId);
        expect(all.length).toBe(500);
        for (const left of ['46.0.1.241', '46.0.1.242', '46.0.1.243']) expect(all).not.toContain(left);
        expect(await syncOk(account)).toEqual({ campaigns: 1, added: 0, removed: 0, kept: 500, skipped: 3, errors: [] });
        expect(fake.callsFor(customerId, 'mutate').length).toBe(1);
      });
    });

    describe('error', () => {
      test('409 when no ad account is connected; nothing is called', async () => {
        const account = await registerAccount(t);
        await insertAdCampaign(db, account.orgId);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.40.1', score: 90 });
        const calls = fake.calls.length;
        const res = await sync(t, account);
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'no ad account connected' });
        expect(fake.calls.length).toBe(calls);
      });

      test('one campaign’s error is reported with Google’s message; the others are synced', async () => {
        const { account, customerId, campaign, externalId } = await connectedAccount();
        const broken = await insertAdCampaign(db, account.orgId);
        const badId = await insertAdCampaign(db, account.orgId, { externalId: 'abc-123' });
        const lastOk = await insertAdCampaign(db, account.orgId);
        fake.failCampaign(broken.externalId!, 'The campaign was removed.');
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.41.1', score: 90 });
        const summary = await syncOk(account);
        expect(summary).toMatchObject({ campaigns: 2, added: 2, removed: 0 });
        expect(summary.errors).toEqual([
          { campaign_id: broken.id, external_id: broken.externalId, error: 'Google Ads search: INVALID_ARGUMENT INVALID_INPUT: The campaign was removed. (request req-400-invalid_argument)' },
          { campaign_id: badId.id, external_id: 'abc-123', error: 'external_id is not a Google Ads campaign id (digits only)' },
        ]);
        expect(pushed(customerId, externalId)).toEqual(['45.33.41.1']);
        expect(pushed(customerId, lastOk.externalId!)).toEqual(['45.33.41.1']);
        expect((await recorded(account)).map((row) => row.campaign_id).sort()).toEqual([campaign.id, lastOk.id].sort());
        expect(JSON.stringify(fake.callsFor(customerId))).not.toContain('abc-123');
      });

      test('a refused mutate records nothing, and the next sync tries again', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        fake.failCampaign(externalId, 'Too many requests for this campaign.', 'mutate');
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.42.1', score: 90 });
        const summary = await syncOk(account);
        expect(summary).toMatchObject({ campaigns: 0, added: 0 });
        expect(summary.errors[0].error).toContain('Too many requests for this campaign.');
        expect(await recorded(account)).toEqual([]);
        expect(pushed(customerId, externalId)).toEqual([]);
        fake.failCampaign(externalId, '', 'search');
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 1, errors: [] });
        expect(pushed(customerId, externalId)).toEqual(['45.33.42.1']);
      });

      test('a refused refresh token is one clear 502, before any API call; the next sync runs once reconnected', async () => {
        const account = await registerAccount(t);
        const customerId = await connectGoogleAds(t, account, fake, { refresh_token: '1//revoked-token' });
        await insertAdCampaign(db, account.orgId);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.43.1', score: 90 });
        const res = await sync(t, account);
        expect(res.status).toBe(502);
        expectSecurityHeaders(res);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ error: 'Google sign-in failed: invalid_grant: Token has been expired or revoked.' });
        expect(text).not.toContain('1//revoked-token');
        expect(text).not.toContain(fake.credentials.clientSecret);
        expect(fake.callsFor(customerId)).toEqual([]);
        const again = await connectGoogleAds(t, account, fake);
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 1 });
        expect(fake.callsFor(again, 'mutate').length).toBe(1);
      });

      test('409 when the stored credentials no longer open (SESSION_SECRET changed)', async () => {
        const { account } = await connectedAccount();
        const foreign = createSecretBox('a-different-session-secret-of-enough-length-7').seal('{}', `ad_integrations:${account.orgId}:google_ads`);
        await db.query('UPDATE ad_integrations SET secrets = $2 WHERE org_id = $1', [account.orgId, foreign]);
        const res = await sync(t, account);
        expect(res.status).toBe(409);
        expect((await body(res)).error).toBe('the stored ad account credentials no longer open (SESSION_SECRET changed): connect the account again');
      });
    });

    describe('concurrency', () => {
      test('a second sync while one runs is refused (409); the lease is released after', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        await insertAdCampaign(db, account.orgId);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.50.1', score: 90 });
        const release = fake.holdSearches();
        let first: Promise<Response>;
        try {
          first = sync(t, account);
          await eventually(() => fake.callsFor(customerId, 'search').length > 0);
          const second = await sync(t, account);
          expect(second.status).toBe(409);
          expect(await body(second)).toEqual({ error: 'a sync is already running' });
        } finally {
          release();
        }
        const done = await first!;
        expect(done.status).toBe(200);
        expect(await body(done)).toMatchObject({ campaigns: 2, added: 2 });
        expect(fake.callsFor(customerId, 'mutate').length).toBe(2);
        expect(pushed(customerId, externalId)).toEqual(['45.33.50.1']);
        expect(await syncOk(account)).toMatchObject({ added: 0, kept: 2 });
      });

      test('a lease left by a node that died expires; one still live is respected', async () => {
        const { account } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.51.1', score: 90 });
        await db.query("UPDATE ad_integrations SET sync_lease_token = 'live', sync_lease_until = now() + interval '1 minute' WHERE org_id = $1", [account.orgId]);
        expect((await sync(t, account)).status).toBe(409);
        await db.query("UPDATE ad_integrations SET sync_lease_token = 'dead', sync_lease_until = now() - interval '1 second' WHERE org_id = $1", [account.orgId]);
        expect(await syncOk(account)).toMatchObject({ campaigns: 1, added: 1 });
        const [lease] = await db.query<{ sync_lease_token: string | null }>('SELECT sync_lease_token FROM ad_integrations WHERE org_id = $1', [account.orgId]);
        expect(lease!.sync_lease_token).toBeNull();
      });

      test('disconnecting during a sync stops it before the next campaign', async () => {
        const { account, customerId, externalId } = await connectedAccount();
        const next = await insertAdCampaign(db, account.orgId);
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.52.1', score: 90 });
        const release = fake.holdSearches();
        let running: Promise<Response>;
        try {
          running = sync(t, account);
          await eventually(() => fake.callsFor(customerId, 'search').length > 0);
          const gone = await t.request('/api/dashboard/integrations/google-ads', { method: 'DELETE', headers: { cookie: account.cookie } });
          expect(gone.status).toBe(200);
        } finally {
          release();
        }
        const summary = await body(await running!);
        expect(summary).toMatchObject({ campaigns: 1, added: 1 });
        expect(summary.errors).toEqual([{ campaign_id: next.id, external_id: next.externalId, error: expect.stringContaining('sync stopped') }]);
        expect(pushed(customerId, externalId)).toEqual(['45.33.52.1']);
        expect(pushed(customerId, next.externalId!)).toEqual([]);
      });
    });

    describe('security', () => {
      test('401 without a session; 403 for a cross-site POST; nothing is called', async () => {
        const { account } = await connectedAccount();
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.60.1', score: 90 });
        const calls = fake.calls.length;
        expect((await t.request('/api/protect/sync', { method: 'POST' })).status).toBe(401);
        expect((await t.request('/api/protect/sync', { method: 'POST', headers: { cookie: 'svc_session=forged' } })).status).toBe(401);
        const crossSite = await sync(t, account, { origin: 'https://evil.example' });
        expect(crossSite.status).toBe(403);
        expect((await sync(t, account, { origin: 'null' })).status).toBe(403);
        expect(fake.calls.length).toBe(calls);
        expect(await recorded(account)).toEqual([]);
        expect((await t.request('/api/protect/sync', { headers: { cookie: account.cookie } })).status).toBe(405);
      });

      test('a sync sees only its own organization: clicks, campaigns, records and account', async () => {
        const alice = await connectedAccount();
        const mallory = await connectedAccount();
        await insertRiskyClick(db, { orgId: alice.account.orgId, ip: '45.33.61.1', score: 70 });
        await insertRiskyClick(db, { orgId: mallory.account.orgId, ip: '45.33.61.66', score: 100 });
        expect(await syncOk(alice.account)).toMatchObject({ campaigns: 1, added: 1 });
        expect(pushed(alice.customerId, alice.externalId)).toEqual(['45.33.61.1']);
        expect(fake.callsFor(mallory.customerId)).toEqual([]);
        expect(await recorded(mallory.account)).toEqual([]);
        // Mallory's own sync pushes Mallory's list to Mallory's campaign, and leaves Alice's alone.
        expect(await syncOk(mallory.account)).toMatchObject({ campaigns: 1, added: 1 });
        expect(pushed(mallory.customerId, mallory.externalId)).toEqual(['45.33.61.66']);
        expect(pushed(alice.customerId, alice.externalId)).toEqual(['45.33.61.1']);
        expect((await recorded(alice.account)).map((row) => row.ip_block)).toEqual(['45.33.61.1']);
      });

      test('another organization’s invalid clicks never reach the list, even on an address both saw', async () => {
        const alice = await connectedAccount();
        const mallory = await connectedAccount();
        await db.query('UPDATE organizations SET invalid_threshold = 10 WHERE id = $1', [mallory.account.orgId]);
        await insertRiskyClick(db, { orgId: alice.account.orgId, ip: '45.33.63.1', score: 40 });
        await insertRiskyClick(db, { orgId: mallory.account.orgId, ip: '45.33.63.1', score: 100 });
        await insertRiskyClick(db, { orgId: mallory.account.orgId, ip: '45.33.63.2', score: 20 });
        // Alice's own click is under her threshold of 50; Mallory's clicks and threshold are not hers.
        expect(await syncOk(alice.account)).toEqual({ campaigns: 1, added: 0, removed: 0, kept: 0, skipped: 0, errors: [] });
        expect(fake.callsFor(alice.customerId, 'mutate')).toEqual([]);
        expect(pushed(alice.customerId, alice.externalId)).toEqual([]);
        expect(await syncOk(mallory.account)).toMatchObject({ campaigns: 1, added: 2 });
        expect(pushed(mallory.customerId, mallory.externalId)).toEqual(['45.33.63.1', '45.33.63.2']);
      });

      test('no secret in any answer of a sync', async () => {
        const { account } = await connectedAccount();
        const broken = await insertAdCampaign(db, account.orgId);
        fake.failCampaign(broken.externalId!, 'Campaign is not found.');
        await insertRiskyClick(db, { orgId: account.orgId, ip: '45.33.62.1', score: 90 });
        const text = await (await sync(t, account)).text();
        for (const secret of [fake.credentials.developerToken, fake.credentials.clientSecret, fake.credentials.refreshToken, fake.credentials.clientId]) expect(text).not.toContain(secret);
        expect(JSON.parse(text).errors.length).toBe(1);
      });
    });
  });
}
