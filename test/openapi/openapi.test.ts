import { describe, expect, test } from 'bun:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiPath } from '../../src/openapi/openapi-document';
import { TRACKING_ROUTE_DOCS } from '../../src/tracking/redirect/tracking.docs';
import { body, TEST_TRACKING_URL, testApp } from '../support/app';
import { backends } from '../support/db';
import { expectSecurityHeaders } from '../support/http';

type Operation = { security: Record<string, string[]>[]; parameters?: { name: string; in: string; required: boolean; schema: any }[]; requestBody?: any; responses: Record<string, any> };

const JSON_SCHEMA_OF = (op: Operation) => op.requestBody?.content?.['application/json']?.schema;

for (const backend of backends()) {
  describe(`GET /api/openapi.json and /docs on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const document = await body(await t.request('/api/openapi.json'));
    const operation = (method: string, path: string): Operation => document.paths[openApiPath(path)]?.[method.toLowerCase()];

    test('a valid OpenAPI 3.1 document', async () => {
      expect(document.openapi).toBe('3.1.0');
      const result = await new Validator().validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    });

    test('every route the app serves is in it, with its method, and nothing else', () => {
      const served = [...t.app.routes.map((route) => [route.method, route.path]), ...Object.keys(TRACKING_ROUTE_DOCS).map((path) => ['GET', path])];
      expect(served.length).toBeGreaterThan(60);
      for (const [method, path] of served) {
        if (!operation(method!, path!)) throw new Error(`${method} ${path} is served but missing from the document`);
      }
      const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
        Object.keys(item).filter((key) => key !== 'servers').map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(documented.sort()).toEqual(served.map(([method, path]) => `${method} ${openApiPath(path!)}`).sort());
    });

    test("each operation's auth is the credential its route takes", () => {
      expect(operation('POST', '/api/v1/conversions').security).toEqual([{ apiKey: [] }]);
      expect(operation('GET', '/postback').security).toEqual([{ apiKey: [] }, { apiKeyQuery: [] }]);
      expect(operation('POST', '/api/sdk/v1/install').security).toEqual([{ sdkKey: [] }, { sdkKeyQuery: [] }]);
      expect(operation('GET', '/api/dashboard/realtime').security).toEqual([{ session: [] }]);
      expect(operation('POST', '/api/protect/sync').security).toEqual([{ session: [] }]);
      expect(operation('POST', '/api/ingest/clicks').security).toEqual([{ ingestSignature: [] }]);
      expect(operation('GET', '/api/health').security).toEqual([]);
      expect(operation('POST', '/api/protect/beacon').security).toEqual([]);
      expect(operation('GET', '/c/:slug').security).toEqual([]);
      expect(operation('POST', '/api/mcp').security).toEqual([{}, { apiKey: [] }]);
      expect(document.paths['/c/{slug}'].servers).toEqual([{ url: TEST_TRACKING_URL, description: 'tracking_url' }]);
      expect(document.paths['/.well-known/attribution-reporting/register-source'].servers).toEqual([{ url: TEST_TRACKING_URL, description: 'tracking_url' }]);
      expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'apiKeyQuery', 'ingestSignature', 'sdkKey', 'sdkKeyQuery', 'session']);
      expect(operation('POST', '/api/v1/conversions').responses['401']).toBeDefined();
      expect(operation('GET', '/api/health').responses['401']).toBeUndefined();
    });

    test('request and response schemas come from the route models', () => {
      const conversion = JSON_SCHEMA_OF(operation('POST', '/api/v1/conversions'));
      expect(Object.keys(conversion.properties)).toEqual(['click_id', 'gclid', 'event', 'value', 'currency', 'order_id']);
      expect(conversion.properties.click_id).toMatchObject({ type: 'string', minLength: 4, maxLength: 64 });
      expect(conversion.additionalProperties).toBe(false);
      const exportOp = operation('GET', '/api/dashboard/export');
      expect(exportOp.parameters!.slice(0, 3).map((p) => [p.name, p.in, p.required])).toEqual([['type', 'query', true], ['from', 'query', false], ['to', 'query', false]]);
      expect(exportOp.parameters!.slice(3).map((p) => p.name)).toEqual(['group_by', 'days', 'campaign_id', 'partner', 'app_id', 'country', 'platform', 'reattributions', 'activity']);
      expect(exportOp.parameters![0]!.schema.anyOf.map((s: { const: string }) => s.const)).toEqual(['clicks', 'conversions', 'pivot', 'cohorts']);
      const cohorts = operation('GET', '/api/v1/reports/cohorts');
      expect(cohorts.security).toEqual([{ apiKey: [] }]);
      expect(cohorts.parameters!.filter((p) => p.required).map((p) => p.name)).toEqual(['from', 'to']);
      expect(Object.keys(cohorts.responses['200'].content['application/json'].schema.properties)).toContain('unconverted');
      expect(operation('GET', '/api/dashboard/reports/cohorts').security).toEqual([{ session: [] }]);
      expect(Object.keys(exportOp.responses['200'].content)).toEqual(['text/csv']);
      const realtime = operation('GET', '/api/dashboard/realtime').responses['200'].content;
      expect(realtime['application/json'].schema.properties.per_minute.minItems).toBe(15);
      expect(realtime['text/event-stream']).toBeDefined();
      expect(operation('PATCH', '/api/v1/links/:id').parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }]);
      expect(operation('POST', '/api/v1/links').responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ValidationError' });
      expect(operation('POST', '/register').responses['429']).toBeDefined();
      expect(JSON.stringify(document)).not.toContain('"error":"must');
    });

    test("every key's rate_limit_per_minute is in the bodies that set and show it; keyed routes may answer 429", () => {
      const limitField = { anyOf: [{ type: 'number', minimum: 1, maximum: 1_000_000, multipleOf: 1 }, { type: 'null' }] };
      for (const [method, path] of [['POST', '/api/dashboard/keys'], ['PATCH', '/api/dashboard/keys/:id'], ['POST', '/api/v1/apps'], ['PATCH', '/api/v1/apps/:id'], ['POST', '/api/dashboard/apps'], ['PATCH', '/api/dashboard/apps/:id']] as const) {
        expect(JSON_SCHEMA_OF(operation(method, path)).properties.rate_limit_per_minute).toEqual(limitField);
      }
      expect(JSON_SCHEMA_OF(operation('PATCH', '/api/dashboard/keys/:id')).required).toEqual(['rate_limit_per_minute']);
      const schemaOf = (method: string, path: string, status: string) => operation(method, path).responses[status].content['application/json'].schema;
      expect(schemaOf('POST', '/api/dashboard/keys', '201').properties.rate_limit_per_minute.description).toBe("the key's own requests a minute; null: none (KEY_RATE_LIMIT, when set, applies)");
      expect(Object.keys(schemaOf('GET', '/api/dashboard/keys', '200').properties.data.items.properties)).toContain('rate_limit_per_minute');
      expect(Object.keys(schemaOf('PATCH', '/api/dashboard/keys/:id', '200').properties)).toContain('rate_limit_per_minute');
      // /api/edge/links/hot is in no per-IP group: its 429 is the key's own limit.
      expect(operation('GET', '/api/edge/links/hot').responses['429'].description).toBe("rate limited (the key's own limit, when it has one)");
      expect(operation('POST', '/api/sdk/v1/install').responses['429'].description).toBe("rate limited (600 a minute per client IP; the key's own limit, when it has one)");
      expect(operation('POST', '/register').responses['429'].description).toBe('rate limited (20 a minute per client IP)');
    });

    test('GET /docs renders every operation, with a strict CSP and no script', async () => {
      const res = await t.request('/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expectSecurityHeaders(res);
      const page = await res.text();
      for (const path of Object.keys(document.paths)) expect(page).toContain(`<code>${path.replaceAll('&', '&amp;')}</code>`);
      expect(page).toContain('/api/openapi.json');
      expect(page).not.toContain('<script');
    });
  });
}
