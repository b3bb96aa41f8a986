import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { TOOLS } from '../../src/mcp/server';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { mcpClient, textOf } from './support';

// PGlite boots and whole-app instances on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(120_000);

type Schema = Record<string, unknown>;
/** What makes a schema say what it holds; `{}` or a lone description holds anything. */
const SHAPING = ['type', 'anyOf', 'oneOf', 'allOf', '$ref', 'const', 'enum'];
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every schema under `schema` (properties, items, record values, union members) that has no shape, by its path. */
function unshaped(schema: Schema, at: string): string[] {
  const found = SHAPING.some((keyword) => keyword in schema) ? [] : [at];
  const children: [string, unknown][] = [
    ...Object.entries((schema.properties ?? {}) as Record<string, unknown>).map(([name, child]): [string, unknown] => [`${at}.${name}`, child]),
    ...Object.values((schema.patternProperties ?? {}) as Record<string, unknown>).map((child): [string, unknown] => [`${at}{*}`, child]),
    [`${at}{*}`, schema.additionalProperties],
    [`${at}[]`, schema.items],
    ...['anyOf', 'oneOf', 'allOf'].flatMap((keyword) => ((schema[keyword] ?? []) as unknown[]).map((child, index): [string, unknown] => [`${at}|${index}`, child])),
  ];
  return [...found, ...children.flatMap(([path, child]) => (isSchema(child) ? unshaped(child, path) : []))];
}

const RULES = {
  version: 1,
  rules: [
    { name: 'de-nights', if: { country: 'de', hours: { from: 22, to: 6 }, params: { utm_source: 'news' } }, then: { url: 'https://shop.example.com/de' } },
    { name: 'ab', if: { os: 'ios' }, then: { variants: [{ url: 'https://a.example.com/', weight: 1 }, { url: 'https://b.example.com/', weight: 1 }] } },
  ],
  fallback: { url: 'https://shop.example.com/' },
};

for (const backend of backends()) {
  describe(`MCP tool schemas on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const me = await orgWithKey(db);
    const created = await t.request('/api/v1/links', {
      method: 'POST',
      headers: me.auth,
      json: { kind: 'smart', destination: 'https://shop.example.com/', rules: RULES, preview: { title: 'The shop', image: 'https://cdn.example.com/a.png' } },
    });
    const smart = await body(created);

    /** A call the SDK client has checked against the tool's outputSchema (listed first, so the client holds it). */
    const checked = async (client: Client, name: string, args: Record<string, unknown>): Promise<any> => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
      return result.structuredContent;
    };

    test('every property of every tool’s inputSchema and outputSchema has a type or a shape', async () => {
      expect(created.status).toBe(201);
      const client = await mcpClient(t, me.apiKey);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(TOOLS.length);
      const found = tools.flatMap((tool) => [...unshaped(tool.inputSchema, `${tool.name} input`), ...unshaped(tool.outputSchema!, `${tool.name} output`)]);
      expect(found).toEqual([]);
      await client.close();
    });

    test('the structured results of real calls match their outputSchema, as the SDK client checks them', async () => {
      const client = await mcpClient(t, me.apiKey);
      await client.listTools();
      const { link } = await checked(client, 'get_link', { id: smart.id });
      expect(link.rules.rules[0].if).toMatchObject({ country: ['DE'], hours: { from: 22, to: 6, tz: 'UTC' }, params: { utm_source: ['news'] } });
      expect(link.preview).toEqual({ title: 'The shop', image: 'https://cdn.example.com/a.png' });
      expect((await checked(client, 'list_links', {})).links.map((listed: { id: string }) => listed.id)).toContain(smart.id);
      expect((await checked(client, 'update_smart_link_routing', { link_id: smart.id, rules: RULES })).changed).toBe(false);
      expect((await checked(client, 'set_link_status', { link_id: smart.id, status: 'active' })).changed).toBe(false);
      const routed = await checked(client, 'test_smart_link_route', { slug: smart.slug, ip: '8.8.8.8', os: 'ios', params: 'utm_source=news' });
      expect(routed.context.params).toEqual({ utm_source: 'news' });
      expect(routed.decision).toMatchObject({ rule_name: 'ab', action: 'variants', status: 302 });
      expect(routed.pool).toMatchObject({ ip: '8.8.8.8', pool: { type: expect.any(String) }, intel: { clicks_24h: 0 } });
      expect((await checked(client, 'test_smart_link_route', { slug: smart.slug })).pool).toBeNull();
      await client.close();
    });

    test('the output schemas refuse rules, a preview and a pool that are not of their shape', async () => {
      const client = await mcpClient(t, me.apiKey);
      const { tools } = await client.listTools();
      await client.close();
      const validator = new AjvJsonSchemaValidator();
      const outputOf = (name: string) => validator.getValidator<any>(tools.find((tool) => tool.name === name)!.outputSchema as any);
      const link = await body(await t.request(`/api/v1/links/${smart.id}`, { headers: me.auth }));
      expect(outputOf('get_link')({ link }).valid).toBe(true);
      for (const wrong of [{ rules: { version: 2, rules: [] } }, { rules: { version: 1, rules: [{ if: { os: 'ios' }, then: {} }] } }, { preview: 'x' }, { preview: { title: 5 } }]) {
        expect(outputOf('get_link')({ link: { ...link, ...wrong } }).valid).toBe(false);
      }
      const route = { context: { country: null, region: null, city: null, os: null, ip_type: null, in_app: false, language: [], timezone: 'UTC', hour: 3, weekday: 'mon', params: {} }, decision: { rule_index: null, rule_name: null, action: 'none', variant_index: null, page: null, status: 404, location: null }, pool: null };
      expect(outputOf('test_smart_link_route')(route).valid).toBe(true);
      for (const wrong of [{ pool: { ip: '8.8.8.8' } }, { pool: 'datacenter' }, { context: { ...route.context, params: { a: 1 } } }, { context: { ...route.context, hour: '3' } }]) {
        expect(outputOf('test_smart_link_route')({ ...route, ...wrong }).valid).toBe(false);
      }
    });
  });
}
