import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { issueApiKey } from '../../src/auth/api-keys';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { workedExample } from '../analytics/cohorts/support';
import { mcpClient, textOf } from './support';

// PGlite boots and whole-app instances on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(120_000);

const ARGS = { from: '2026-03-09', to: '2026-03-10', group_by: 'campaign,day', days: '0,1,3,7,14' };

for (const backend of backends()) {
  describe(`MCP cohort_report on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const { orgId, spring } = await workedExample(db);
    const key = await issueApiKey(db, { orgId, name: 'mcp' });
    const them = await orgWithKey(db, 'Them');
    const client = await mcpClient(t, key.api_key);

    test('the same numbers as GET /api/v1/reports/cohorts, rendered as a table', async () => {
      const result = await client.callTool({ name: 'cohort_report', arguments: ARGS });
      expect(result.isError).toBeFalsy();
      const api = await body(await t.request(`/api/v1/reports/cohorts?${new URLSearchParams(ARGS)}`, { headers: { authorization: `Bearer ${key.api_key}` } }));
      expect(result.structuredContent).toEqual(api);
      expect(api.rows.find((row: any) => row.campaign_id === spring).installs).toBe(2);
      const text = textOf(result);
      expect(text).toContain('| campaign | day | installs | spend | d0 retention | d0 revenue | d0 roas |');
      expect(text).toContain('| Spring | 2026-03-10 | 2 | 30 | 0.5 | 0 | 0 |');
      expect(text).toContain('Not converted (no exchange rate): 2 GBP');
    });

    test('a bad argument is a tool error naming the field; another organization sees none of these installs', async () => {
      const bad = await client.callTool({ name: 'cohort_report', arguments: { ...ARGS, group_by: 'day,campaign,country' } });
      expect(bad.isError).toBe(true);
      expect(JSON.parse(textOf(bad)).error.fieldErrors.group_by).toEqual(['at most two groupings']);
      const unknown = await client.callTool({ name: 'cohort_report', arguments: { ...ARGS, city: 'Berlin' } });
      expect(unknown.isError).toBe(true);
      const theirs = await mcpClient(t, them.apiKey);
      const result = await theirs.callTool({ name: 'cohort_report', arguments: ARGS });
      expect((result.structuredContent as any).rows).toEqual([]);
      expect((result.structuredContent as any).total.installs).toBe(0);
    });
  });
}
