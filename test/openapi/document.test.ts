import { describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { documented } from '../../src/http/documented';
import { openApiDocument, type RouteSource } from '../../src/openapi/openapi-document';

const TRACKING_URL = 'http://track.example';

function documentOf(routes: RouteSource[]): any {
  return openApiDocument({ version: 'test', baseUrl: 'http://api.example', trackingUrl: TRACKING_URL, routes, tracking: {} });
}

const API_KEY = [{ apiKey: [] }];
const SESSION = [{ session: [] }];
const ERROR = { $ref: '#/components/schemas/Error' };
const VALIDATION_ERROR = { $ref: '#/components/schemas/ValidationError' };
const schemaOf = (response: any) => response.content['application/json'].schema;

describe('openApiDocument', () => {
  test("OpenAPI 3.0's nullable becomes the 3.1 null type, in models and declared answers alike", () => {
    const document = documentOf([
      {
        method: 'POST',
        path: '/api/v1/things',
        hooks: {
          body: t.Object({ a: t.Nullable(t.String()), nullable: t.String(), b: t.Optional(t.Nullable(t.Number({ minimum: 1 }))) }),
          detail: documented({ 200: ['ok', t.Object({ c: t.Nullable(t.Literal('x')) })] }),
        },
      },
      // A 3.0-style schema with no null branch of its own.
      { method: 'GET', path: '/api/v1/other', hooks: { response: { type: 'object', properties: { d: { type: 'string', nullable: true } } } } },
    ]);
    const op = document.paths['/api/v1/things'].post;
    const body = op.requestBody.content['application/json'].schema;
    expect(body.properties.a).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(body.properties.b).toEqual({ anyOf: [{ type: 'number', minimum: 1 }, { type: 'null' }] });
    expect(body.properties.nullable).toEqual({ type: 'string' });
    expect(schemaOf(op.responses['200']).properties.c).toEqual({ anyOf: [{ const: 'x', type: 'string' }, { type: 'null' }] });
    expect(schemaOf(document.paths['/api/v1/other'].get.responses['200']).properties.d).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(JSON.stringify(document)).not.toContain('"nullable":true');
  });

  test('each operation gets the refusals its route can give, in the spec error bodies', () => {
    const document = documentOf([
      { method: 'GET', path: '/api/v1/things/:id', hooks: { params: t.Object({ id: t.String({ maxLength: 64 }) }), detail: { security: API_KEY } } },
      { method: 'POST', path: '/api/dashboard/things', hooks: { body: t.Object({ name: t.String() }), detail: { security: SESSION, responses: { 400: { description: 'a name taken' }, 409: { description: 'a conflict' } } } } },
      { method: 'GET', path: '/api/health', hooks: {} },
      { method: 'GET', path: '/things', hooks: { detail: { security: SESSION, responses: { 200: { description: 'the page' }, 302: { description: 'to /login' } } } } },
    ]);
    const lookup = document.paths['/api/v1/things/{id}'].get.responses;
    expect(Object.keys(lookup)).toEqual(['200', '400', '401', '404', '413', '429']);
    expect(schemaOf(lookup['400'])).toEqual(VALIDATION_ERROR);
    expect([lookup['401'], lookup['404'], lookup['413']].map(schemaOf)).toEqual([ERROR, ERROR, ERROR]);
    expect(schemaOf(lookup['429'])).toEqual({ $ref: '#/components/schemas/RateLimited' });
    expect(lookup['429'].headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });

    const write = document.paths['/api/dashboard/things'].post.responses;
    expect(Object.keys(write)).toEqual(['200', '400', '401', '403', '409', '413', '415']);
    expect(write['400']).toEqual({ description: 'a name taken', content: { 'application/json': { schema: { anyOf: [VALIDATION_ERROR, ERROR] } } } });
    expect([write['403'], write['409'], write['415']].map(schemaOf)).toEqual([ERROR, ERROR, ERROR]);

    expect(Object.keys(document.paths['/api/health'].get.responses)).toEqual(['200', '413']);
    expect(Object.keys(document.paths['/things'].get.responses)).toEqual(['200', '302', '413']);

    expect(document.components.schemas.RateLimited).toEqual({
      type: 'object',
      required: ['error', 'retry_after'],
      properties: { error: { const: 'rate_limited', type: 'string' }, retry_after: { type: 'integer', minimum: 1, description: 'seconds, as in the Retry-After header' } },
    });
  });

  test('the Privacy Sandbox paths are on the tracking host, under their own tag', () => {
    const document = documentOf([
      { method: 'GET', path: '/.well-known/attribution-reporting/register-source', hooks: {} },
      { method: 'GET', path: '/api/health', hooks: {} },
    ]);
    const item = document.paths['/.well-known/attribution-reporting/register-source'];
    expect(item.servers).toEqual([{ url: TRACKING_URL, description: 'tracking_url' }]);
    expect(item.get.tags).toEqual(['Privacy Sandbox']);
    expect(document.paths['/api/health'].servers).toBeUndefined();
  });
});
