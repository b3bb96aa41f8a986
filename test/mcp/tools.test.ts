import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { body, testApp, TEST_TRACKING_URL } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertApp, insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { insertConversion, insertCost, insertEvent, insertInstall } from '../analytics/report-fixtures';
import { insertConversion as insertStoredConversion, insertCost as insertStoredCost } from '../support/facts';
import { mcpClient, textOf } from './support';

// PGlite boots, DuckDB files and whole-app instances on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(120_000);

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const RULES = { version: 1, rules: [{ name: 'de', if: { country: 'de' }, then: { url: 'https://shop.example.com/de' } }], fallback: { url: 'https://shop.example.com/' } };

/** A tool call's structured result; fails with the tool's text when it answered an error. */
async function structured(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent;
}

/** A tool error's body: the REST API's error shape. */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return JSON.parse(textOf(result));
}

for (const backend of backends()) {
  describe(`MCP tools on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const me = await orgWithKey(db, 'Me');
    const them = await orgWithKey(db, 'Them');
    const mine = await mcpClient(t, me.apiKey);
    const theirs = await mcpClient(t, them.apiKey);
    const anonymous = await mcpClient(t);
    const created = await t.request('/api/v1/links', { method: 'POST', headers: me.auth, json: { kind: 'smart', slug: `sm${me.orgId.slice(-8).toLowerCase()}`, destination: 'https://shop.example.com/', rules: RULES } });
    const smart = await body(created);
    const tracking = await insertLink(db, me.orgId, { slug: `tr${me.orgId.slice(-8).toLowerCase()}` });
    const audits = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND entity = 'link'", [me.orgId]))[0]!.n;

    describe('documentation (no key needed)', () => {
      test('search_docs ranks passages with their page and heading; get_doc returns a page, with or without a key', async () => {
        for (const client of [anonymous, mine]) {
          const found = await structured(client, 'search_docs', { query: 'smart link rule hours time zone', limit: 3 });
          expect(found.results).toHaveLength(3);
          expect(found.results[0]).toMatchObject({ document: 'smart-links.md', heading: expect.stringContaining('Hours') });
          expect(found.results[0].score).toBeGreaterThanOrEqual(found.results[2].score);
          const page = await structured(client, 'get_doc', { path: 'docs/smart-links.md' });
          expect(page).toMatchObject({ document: 'smart-links.md', uri: 'docs://smart-links.md', title: 'Smart links: routing rules' });
          expect(page.text).toContain('## Rule schema (version 1)');
        }
        const result = await anonymous.callTool({ name: 'search_docs', arguments: { query: 'postback' } });
        expect(textOf(result)).toMatch(/^## 1\. \S+\.md > /);
      });

      test('resources are the pages as docs:// URIs; an unknown or escaping URI is a JSON-RPC error', async () => {
        const read = await anonymous.readResource({ uri: 'docs://smart-links.md' });
        expect(read.contents[0]).toMatchObject({ uri: 'docs://smart-links.md', mimeType: 'text/markdown' });
        for (const uri of ['docs://nope.md', 'docs://../package.json', 'file:///etc/passwd']) {
          await expect(anonymous.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
        }
      });

      test('bad arguments are tool errors naming the field; nothing outside docs/ is served', async () => {
        for (const path of ['../package.json', 'docs/../README.md', '/etc/passwd', 'nope.md']) {
          expect(Object.keys((await toolError(anonymous, 'get_doc', { path })).error.fieldErrors)).toEqual(['path']);
        }
        expect((await toolError(anonymous, 'search_docs', {})).error.fieldErrors.query).toBeDefined();
        expect((await toolError(anonymous, 'search_docs', { query: 'x', limit: 0 })).error.fieldErrors).toEqual({ limit: ['must be an integer from 1 to 20'] });
        expect((await toolError(anonymous, 'search_docs', { query: 'x', limti: 3 })).error.fieldErrors).toEqual({ limti: ['unknown field'] });
      });

      test('the write_smart_link_rules prompt carries the rule schema', async () => {
        const prompt = await anonymous.getPrompt({ name: 'write_smart_link_rules', arguments: { goal: 'iPhones to the App Store' } });
        expect(prompt.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining('iPhones to the App Store') });
        expect(prompt.messages[1]!.content).toMatchObject({ type: 'resource', resource: { uri: 'docs://smart-links.md', text: expect.stringContaining('Rule schema') } });
        await expect(anonymous.getPrompt({ name: 'write_smart_link_rules', arguments: { goal: ' ' } })).rejects.toMatchObject({ code: -32602 });
      });
    });

    describe('links', () => {
      test("list_links and get_link (by id or slug) answer this organization's links as the REST API does", async () => {
        const listed = await structured(mine, 'list_links', { limit: 10 });
        expect(listed.links.map((link: { id: string }) => link.id).sort()).toEqual([smart.id, tracking.linkId].sort());
        const rest = await body(await t.request(`/api/v1/links/${smart.id}`, { headers: me.auth }));
        expect(await structured(mine, 'get_link', { id: smart.id })).toEqual({ link: rest });
        expect((await structured(mine, 'get_link', { slug: tracking.slug })).link.id).toBe(tracking.linkId);
        expect(textOf(await mine.callTool({ name: 'list_links', arguments: {} }))).toContain(`| ${smart.slug} | smart | active |`);
      });

      test('get_link needs exactly one of id and slug; another organization reads none of these links', async () => {
        expect((await toolError(mine, 'get_link', {})).error.formErrors).toEqual(['give exactly one of id or slug']);
        expect((await toolError(mine, 'get_link', { id: smart.id, slug: smart.slug })).error.formErrors).toEqual(['give exactly one of id or slug']);
        expect((await toolError(mine, 'get_link', { slug: 'no/slash' })).error.fieldErrors).toEqual({ slug: ['must be a link slug'] });
        expect(await structured(theirs, 'list_links')).toEqual({ links: [] });
        expect(await toolError(theirs, 'get_link', { id: smart.id })).toEqual({ error: 'link not found' });
        expect(await toolError(theirs, 'get_link', { slug: smart.slug })).toEqual({ error: 'link not found' });
      });
    });

    describe('management', () => {
      test('update_smart_link_routing replaces the rules whole, audited with the key; the same rules again change nothing', async () => {
        const before = await audits();
        const rules = [{ name: 'ios', if: { os: 'ios' }, then: { store: 'https://apps.apple.com/app/id1' } }, { name: 'all', if: {}, then: { url: 'https://new.example.com/' } }];
        const first = await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules });
        expect(first.changed).toBe(true);
        expect(first.link.rules).toEqual({ version: 1, rules: [{ ...rules[0], if: { os: ['ios'] } }, rules[1]] });
        const [audit] = await db.query<Record<string, any>>("SELECT api_key_id, action, entity_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'link' ORDER BY created_at DESC, id DESC LIMIT 1", [me.orgId]);
        expect(audit).toEqual({ api_key_id: me.keyId, action: 'update', entity_id: smart.id, detail: { fields: ['rules'], via: 'mcp' } });
        expect(await audits()).toBe(before + 1);
        // The redirect follows the new rules at once.
        const visit = await t.request(`${TEST_TRACKING_URL}/l/${smart.slug}`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' } });
        expect(visit.headers.get('location')).toStartWith('https://new.example.com/');

        const again = await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules: first.link.rules });
        expect(again).toEqual({ changed: false, link: first.link });
        const respelled = await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules });
        expect(respelled.changed).toBe(false);
        expect(respelled.link.updated_at).toBe(first.link.updated_at);
        expect(await audits()).toBe(before + 1);

        const cleared = await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules: null });
        expect(cleared.link.rules).toBeNull();
        expect((await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules: null })).changed).toBe(false);
        expect(await audits()).toBe(before + 2);
      });

      test('rules are checked as the links API checks them: the error names the exact path, and nothing changes', async () => {
        const current = (await structured(mine, 'get_link', { id: smart.id })).link;
        const bad = await toolError(mine, 'update_smart_link_routing', { link_id: smart.id, rules: [{ if: { country: 'USA' }, then: { url: 'javascript:alert(1)' } }] });
        expect(Object.keys(bad.error.fieldErrors).sort()).toEqual(['rules.rules.0.if.country', 'rules.rules.0.then.url']);
        expect((await toolError(mine, 'update_smart_link_routing', { link_id: smart.id, rules: 'x' })).error.fieldErrors).toEqual({ rules: ['must be a rule set object, an array of rules, or null'] });
        expect((await toolError(mine, 'update_smart_link_routing', { rules: [] })).error.fieldErrors.link_id).toBeDefined();
        expect((await toolError(mine, 'update_smart_link_routing', { link_id: tracking.linkId, rules: [] })).error.fieldErrors).toEqual({ link_id: ['is a tracking link: only smart links have rules'] });
        expect((await structured(mine, 'get_link', { id: smart.id })).link).toEqual(current);
      });

      test('set_link_status pauses (the link answers 404) and resumes; a repeat changes nothing; a bad status names the field', async () => {
        const before = await audits();
        const landing = `${TEST_TRACKING_URL}/c/${tracking.slug}?url=${encodeURIComponent('https://shop.example.com/x')}`;
        expect((await t.request(landing)).status).toBe(302);
        const paused = await structured(mine, 'set_link_status', { link_id: tracking.linkId, status: 'paused' });
        expect(paused).toMatchObject({ changed: true, link: { status: 'paused' } });
        expect((await t.request(landing)).status).toBe(404);
        expect(await structured(mine, 'set_link_status', { link_id: tracking.linkId, status: 'paused' })).toEqual({ changed: false, link: paused.link });
        expect(await audits()).toBe(before + 1);
        expect((await structured(mine, 'set_link_status', { link_id: tracking.linkId, status: 'active' })).changed).toBe(true);
        expect((await t.request(landing)).status).toBe(302);
        expect((await toolError(mine, 'set_link_status', { link_id: tracking.linkId, status: 'deleted' })).error.fieldErrors).toEqual({ status: ["must be 'active' or 'paused'"] });
        expect(await audits()).toBe(before + 2);
      });

      test('another organization can neither change nor test these links', async () => {
        const before = (await structured(mine, 'get_link', { id: smart.id })).link;
        expect(await toolError(theirs, 'update_smart_link_routing', { link_id: smart.id, rules: [] })).toEqual({ error: 'link not found' });
        expect(await toolError(theirs, 'set_link_status', { link_id: smart.id, status: 'paused' })).toEqual({ error: 'link not found' });
        expect(await toolError(theirs, 'test_smart_link_route', { slug: smart.slug })).toEqual({ error: 'link not found' });
        expect((await structured(mine, 'get_link', { id: smart.id })).link).toEqual(before);
        expect((await db.query("SELECT 1 FROM audit_log WHERE org_id = $1 AND entity = 'link'", [them.orgId])).length).toBe(0);
      });

      test('test_smart_link_route answers the route test and records nothing', async () => {
        await structured(mine, 'update_smart_link_routing', { link_id: smart.id, rules: RULES });
        // Earlier tests' redirects are written behind their answers: the count is taken once
        // the click pipeline has written every click answered so far, before and after.
        const clicks = async () => {
          await t.services.clickPipeline.flush();
          return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [me.orgId]))[0]!.n;
        };
        const before = await clicks();
        const result = await structured(mine, 'test_smart_link_route', { slug: smart.slug, country: 'de', hour: 12, timezone: 'Europe/Berlin' });
        expect(result.context).toMatchObject({ country: 'DE', hour: 12, timezone: 'Europe/Berlin' });
        expect(result.decision).toMatchObject({ rule_index: 0, rule_name: 'de', status: 302, location: 'https://shop.example.com/de' });
        expect(result.pool).toBeNull();
        expect(await clicks()).toBe(before);
        expect((await toolError(mine, 'test_smart_link_route', { slug: smart.slug, hour: 24 })).error.fieldErrors).toEqual({ hour: ['must be an integer from 0 to 23'] });
        expect((await toolError(mine, 'test_smart_link_route', { slug: smart.slug, hour: '12' })).error.fieldErrors).toEqual({ hour: ['must be an integer from 0 to 23'] });
        expect((await toolError(mine, 'test_smart_link_route', { slug: tracking.slug })).error.fieldErrors.slug).toBeDefined();
      });
    });

    describe('analytics', async () => {
      const { appId } = await insertApp(db, me.orgId);
      const { campaignId } = await insertCampaign(db, me.orgId);
      const install = await insertInstall(db, { orgId: me.orgId, appId, campaignId, at: '2026-03-01T10:00:00Z' });
      await insertClick(db, { orgId: me.orgId, campaignId, linkId: tracking.linkId, country: 'FR', createdAt: '2026-03-01T09:00:00Z' });
      await insertClick(db, { orgId: me.orgId, campaignId, linkId: tracking.linkId, country: 'FR', createdAt: '2026-03-02T09:00:00Z', dropReason: 'invalid' });
      await insertConversion(db, { orgId: me.orgId, campaignId, event: 'purchase', value: 12.5, at: '2026-03-01T11:00:00Z' });
      await insertEvent(db, { orgId: me.orgId, appId, installId: install, name: 'ad_revenue', value: 0.5, at: '2026-03-01T12:00:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-03-01', spend: 26 });
      const march = { from: '2026-03-01', to: '2026-03-31' };

      test('clicks, conversions and installs summaries by each grouping', async () => {
        expect(await structured(mine, 'clicks_summary', { ...march, group_by: 'country' })).toEqual({
          ...march,
          group_by: 'country',
          rows: [{ key: 'FR', label: 'FR', clicks: 1, dropped: 1 }],
          total: { clicks: 1, dropped: 1 },
        });
        expect((await structured(mine, 'clicks_summary', march)).rows).toEqual([
          { key: '2026-03-01', label: '2026-03-01', clicks: 1, dropped: 0 },
          { key: '2026-03-02', label: '2026-03-02', clicks: 0, dropped: 1 },
        ]);
        expect((await structured(mine, 'clicks_summary', { ...march, group_by: 'link' })).rows).toEqual([{ key: tracking.linkId, label: tracking.slug, clicks: 1, dropped: 1 }]);
        expect((await structured(mine, 'conversions_summary', { ...march, group_by: 'campaign' })).rows).toEqual([{ key: campaignId, label: 'Campaign', conversions: 1, matched: 1, value: 12.5 }]);
        expect((await structured(mine, 'installs_summary', { ...march, group_by: 'method' })).total).toEqual({ installs: 1, reattributions: 0 });
        const text = textOf(await mine.callTool({ name: 'conversions_summary', arguments: { ...march, group_by: 'event' } }));
        expect(text).toContain('| purchase | 1 | 1 | 12.5 |');
        expect(text).toContain('Total: conversions 1, matched 1, value 12.5');
      });

      test('campaign_report sums the pivot per campaign: spend, installs, revenue, CPI, ROAS', async () => {
        const report = await structured(mine, 'campaign_report', march);
        expect(report).toEqual({
          ...march,
          campaigns: [{ campaign_id: campaignId, campaign: 'Campaign', clicks: 1, installs: 1, conversions: 1, revenue: 13, spend: 26, cpi: 26, roas: 0.5 }],
          total: { clicks: 1, installs: 1, conversions: 1, revenue: 13, spend: 26, cpi: 26, roas: 0.5 },
        });
        expect(textOf(await mine.callTool({ name: 'campaign_report', arguments: march }))).toContain('| Campaign | 1 | 1 | 1 | 13 | 26 | 26 | 0.5 |');
      });

      test('dates and groupings are checked: a tool error names the field', async () => {
        expect((await toolError(mine, 'clicks_summary', { from: '2026-02-30', to: '2026-03-01' })).error.fieldErrors).toEqual({ from: ['must be a calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31'] });
        expect((await toolError(mine, 'campaign_report', { from: '2026-03-02', to: '2026-03-01' })).error.fieldErrors).toEqual({ to: ['must be the same day as from or later'] });
        expect(Object.keys((await toolError(mine, 'installs_summary', { from: '2024-01-01', to: '2025-12-31' })).error.fieldErrors)).toEqual(['to']);
        expect((await toolError(mine, 'clicks_summary', { ...march, group_by: 'week' })).error.fieldErrors).toEqual({ group_by: ['must be one of day, campaign, country, link'] });
        expect(Object.keys((await toolError(mine, 'conversions_summary', { from: '2026-03-01' })).error.fieldErrors)).toEqual(['to']);
      });

      test("another organization's key sees none of these numbers", async () => {
        expect(await structured(theirs, 'campaign_report', march)).toEqual({ ...march, campaigns: [], total: { clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0, cpi: null, roas: null } });
        for (const name of ['clicks_summary', 'conversions_summary', 'installs_summary']) {
          expect((await structured(theirs, name, { ...march, group_by: 'campaign' })).rows).toEqual([]);
        }
      });
    });

    describe("campaign_report in the organization's zone and currency", async () => {
      const berlin = await orgWithKey(db, 'Berlin');
      const client = await mcpClient(t, berlin.apiKey);
      await db.query("UPDATE organizations SET timezone = 'Europe/Berlin' WHERE id = $1", [berlin.orgId]);
      const { campaignId } = await insertCampaign(db, berlin.orgId);
      await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ($1, $2, DATE '2026-04-01', 'EUR', 1.25, 'USD')", [`r-${berlin.orgId}`, berlin.orgId]);
      // 23:30 UTC on 1 April is 2 April in Berlin.
      await insertStoredConversion(db, { orgId: berlin.orgId, campaignId, createdAt: '2026-04-01T23:30:00Z', value: 10, currency: 'EUR' });
      await insertStoredConversion(db, { orgId: berlin.orgId, campaignId, createdAt: '2026-04-02T12:00:00Z', value: 4, currency: 'SEK' });
      await insertStoredCost(db, { orgId: berlin.orgId, campaignId, day: '2026-04-02', spend: 5 });

      test('days are local days, amounts converted, what has no rate listed apart with the ratio over it null', async () => {
        const report = await structured(client, 'campaign_report', { from: '2026-04-02', to: '2026-04-02' });
        expect(report.campaigns).toEqual([
          { campaign_id: campaignId, campaign: 'Campaign', clicks: 0, installs: 0, conversions: 2, revenue: 12.5, spend: 5, cpi: null, roas: null, unconverted: { SEK: 4 } },
        ]);
        expect(report.total).toMatchObject({ revenue: 12.5, spend: 5, roas: null, unconverted: { SEK: 4 } });
        expect(textOf(await client.callTool({ name: 'campaign_report', arguments: { from: '2026-04-02', to: '2026-04-02' } }))).toContain('Revenue with no exchange rate, left out: 4 SEK.');
        expect((await structured(client, 'campaign_report', { from: '2026-04-01', to: '2026-04-01' })).campaigns).toEqual([]);
      });
    });

    describe('invalid clicks', async () => {
      const { campaignId } = await insertCampaign(db, me.orgId);
      await insertClick(db, { orgId: me.orgId, campaignId, ip: '5.9.1.1', createdAt: ago(2 * HOUR), gclid: 'g1', riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: me.orgId, campaignId, ip: '5.9.1.1', createdAt: ago(HOUR), riskReasons: ['datacenter_ip', 'rapid_repeat'] });
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.2', createdAt: ago(HOUR), riskReasons: ['datacenter_ip', 'no_dwell'] });
      await insertClick(db, { orgId: me.orgId, ip: '73.1.1.1', createdAt: ago(HOUR), riskReasons: ['no_scroll'] });
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.3', createdAt: ago(10 * 24 * HOUR), riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: them.orgId, ip: '5.9.1.9', createdAt: ago(HOUR), riskReasons: ['webdriver'] });

      test('the invalid-click export ranked: worst IPs first, signals counted, totals', async () => {
        const result = await structured(mine, 'invalid_clicks', { days: 7 });
        expect(result).toMatchObject({ days: 7, threshold: 50, complete: true, total: { ips: 2, clicks: 3 } });
        expect(result.rows.map((row: { ip: string; clicks: number; campaign: string | null }) => [row.ip, row.clicks, row.campaign])).toEqual([
          ['5.9.1.1', 2, 'Campaign'],
          ['5.9.1.2', 1, null],
        ]);
        expect(result.rows[0]).toMatchObject({ campaign_id: campaignId, gclid: 'g1', reasons: expect.arrayContaining(['webdriver', 'datacenter_ip', 'rapid_repeat']) });
        expect(result.reasons).toMatchObject({ webdriver: 1, datacenter_ip: 2 });
        expect((await structured(mine, 'invalid_clicks', {})).total.ips).toBe(3);
        expect((await structured(mine, 'invalid_clicks', { days: 30, limit: 1 })).rows).toHaveLength(1);
        expect((await toolError(mine, 'invalid_clicks', { days: 0 })).error.fieldErrors).toEqual({ days: ['must be an integer from 1 to 365'] });
        expect((await structured(theirs, 'invalid_clicks', { days: 7 })).rows.map((row: { ip: string }) => row.ip)).toEqual(['5.9.1.9']);
      });
    });

    describe('prompts with a key', () => {
      test('weekly_campaign_review carries the week’s report; diagnose_link the link, for this organization only', async () => {
        const review = await mine.getPrompt({ name: 'weekly_campaign_review', arguments: { end: '2026-03-07' } });
        expect(review.description).toBe('Campaign review for 2026-03-01 to 2026-03-07');
        expect(review.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining('| Campaign | 1 | 1 | 1 | 13 | 26 | 26 | 0.5 |') });
        await expect(mine.getPrompt({ name: 'weekly_campaign_review', arguments: { end: 'last week' } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('end') });
        const diagnosis = await mine.getPrompt({ name: 'diagnose_link', arguments: { slug: smart.slug } });
        const { type, text } = diagnosis.messages[0]!.content as { type: string; text: string };
        expect(type).toBe('text');
        expect(text).toContain(`"id": "${smart.id}"`);
        expect(text).toContain('test_smart_link_route');
        await expect(theirs.getPrompt({ name: 'diagnose_link', arguments: { slug: smart.slug } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('link not found') });
      });
    });
  });
}
