import { afterAll, describe, expect, test } from 'bun:test';
import { TOO_DEEP } from '../../src/http/json-body';
import { openApiPath } from '../../src/openapi/openapi-document';
import { body, TEST_BASE_URL, testApp } from '../support/app';
import { backends } from '../support/db';
import { startFakeGoogleAds } from '../protect/sync/fake-google-ads';
import { pubsubEnv } from '../subscriptions/support';
import { validRequests, type Credentials, type ValidRequest } from './valid-requests';

/**
 * Every operation of the OpenAPI document, sent the inputs of a hostile client on top of a valid
 * request (valid-requests.ts): a body nested 100,000 levels, a lone surrogate in each string and
 * field name, fields named __proto__, constructor and toString, and numbers past every column's
 * range. None may answer 500: the client would retry a request that can never succeed.
 */
const DEPTH = 100_000;
const DEEP_BODY = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const LONE_SURROGATE = '\ud800';
const HUGE_NUMBERS = [1e300, 2 ** 63];
/** 2^63: past bigint, past every integer a JSON number names exactly; a query value is text either way. */
const HUGE_QUERY_VALUE = '9223372036854775808';
/** Field names are varied in the objects this near the top (a rule set's inner objects are many). */
const NAMED_DEPTH = 3;
/** Stands for a field name JSON.stringify cannot write as an own key (`__proto__`), replaced in the text. */
const NAME_SLOT = '__hostile_name__';

type Json = any;
type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };
type Operation = { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses?: Record<string, unknown> };

interface Variant {
  label: string;
  path: string;
  /** The body's text, as sent. */
  raw?: string;
  /** The deep body: the answer must be the nesting refusal. */
  deep?: boolean;
}

const googleAds = startFakeGoogleAds();
afterAll(() => googleAds.stop());

for (const backend of backends()) {
  describe(`hostile input on every route of the OpenAPI document, on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { SKAN_VERIFY: 'off', POSTBACK_ALLOW_PRIVATE: '1', ...googleAds.env, ...pubsubEnv }, { workers: false });
    const document = await body(await t.request('/api/openapi.json'));
    const fixture = await validRequests(t, db, googleAds);
    const operations: [string, Operation][] = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'servers')
        .map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]),
    );

    const send = async (request: ValidRequest, variant: Variant, credentials: Credentials) => {
      const [method] = variant.label.split(' ');
      const url = variant.path.startsWith('http') ? variant.path : `${TEST_BASE_URL}${variant.path}`;
      return t.request(url, { method, headers: fixture.headers(credentials, variant.raw), body: variant.raw, redirect: 'manual' });
    };

    test('each valid request answers as it should, so the hostile ones change one thing only', async () => {
      const missing = operations.filter(([name, operation]) => needsRequest(name, operation) && !fixture.requests[name]).map(([name]) => name);
      expect(missing).toEqual([]);
      const wrong: string[] = [];
      const undocumented: string[] = [];
      const operationOf = (name: string) => operations.find(([operationName]) => operationName === name)?.[1];
      for (const [name, request] of Object.entries(fixture.requests)) {
        const credentials = request.credentials ? await request.credentials() : fixture.credentials;
        const raw = request.body ? JSON.stringify(request.body()) : undefined;
        const res = await send(request, { label: name, path: request.path, raw }, credentials);
        const ok = request.status === undefined ? res.status >= 200 && res.status < 300 : res.status === request.status;
        if (!ok) wrong.push(`${name}: ${res.status} ${(await res.text()).slice(0, 300)}`);
        else await res.arrayBuffer();
        // What the route answered is what the document says it answers (201 for a create, not 200).
        const documentedStatuses = Object.keys(operationOf(name)?.responses ?? {});
        if (!documentedStatuses.includes(String(res.status))) undocumented.push(`${name}: answered ${res.status}, documented ${documentedStatuses.join(', ')}`);
      }
      expect(wrong).toEqual([]);
      expect(undocumented).toEqual([]);
    }, 120_000);

    test('no hostile input answers 500, and a body nested too deep is refused at once', async () => {
      const failures: string[] = [];
      let sent = 0;
      for (const [name, operation] of operations) {
        const request = fixture.requests[name];
        const method = name.split(' ')[0]!;
        const variants: Variant[] = request ? variantsOf(name, request, operation) : method === 'GET' ? [{ label: name, path: openApiPath(name.split(' ')[1]!) }] : [];
        for (const variant of variants) {
          const credentials = request?.credentials ? await request.credentials() : fixture.credentials;
          const res = await send(request ?? { path: variant.path }, variant, credentials);
          sent++;
          const text = await res.text();
          if (res.status >= 500) failures.push(`${variant.label}: ${res.status} ${text.slice(0, 200)}`);
          else if (variant.deep && operation.requestBody && !refusesDepth(res.status, text)) failures.push(`${variant.label}: ${res.status} ${text.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(300);
    }, 300_000);
  });
}

/** The nesting refusal, or the 413 of a route whose own limit is below the deep body's size (the beacon). */
function refusesDepth(status: number, text: string): boolean {
  return status === 413 || (status === 400 && JSON.parse(text).error.formErrors.includes(TOO_DEEP));
}

/** Every operation that takes input: a body (any method but GET), a path parameter or a query. */
function needsRequest(name: string, operation: Operation): boolean {
  return !name.startsWith('GET ') || (operation.parameters ?? []).length > 0;
}

/** The valid request as is, then each hostile change to it, one at a time. */
function variantsOf(name: string, request: ValidRequest, operation: Operation): Variant[] {
  const method = name.split(' ')[0]!;
  const variants: Variant[] = [];
  const url = new URL(request.path, 'http://x.invalid');
  for (const [parameter] of url.searchParams) {
    const changed = new URL(url);
    changed.searchParams.set(parameter, HUGE_QUERY_VALUE);
    variants.push({ label: `${name} ?${parameter}=${HUGE_QUERY_VALUE}`, path: request.path.replace(url.search, changed.search) });
  }
  if (method === 'GET') return variants;
  variants.push({ label: `${name} nested ${DEPTH} deep`, path: request.path, raw: DEEP_BODY, deep: true });
  const schema = operation.requestBody?.content['application/json']?.schema;
  const sample = request.body?.() ?? {};
  const bodyVariant = (what: string, change: (body: Json) => void, rename?: string) => {
    const fresh = request.body?.() ?? {};
    change(fresh);
    const raw = JSON.stringify(fresh);
    variants.push({ label: `${name} ${what}`, path: request.path, raw: rename ? raw.replaceAll(`"${NAME_SLOT}"`, JSON.stringify(rename)) : raw });
  };
  for (const leaf of leaves(sample)) {
    if (typeof leaf.value === 'string') bodyVariant(`${leaf.path.join('.')} = lone surrogate`, (fresh) => setAt(fresh, leaf.path, LONE_SURROGATE));
    if (typeof leaf.value === 'number') for (const n of HUGE_NUMBERS) bodyVariant(`${leaf.path.join('.')} = ${n}`, (fresh) => setAt(fresh, leaf.path, n));
  }
  for (const missing of absentFields(schema, sample, [])) {
    const values = missing.type === 'string' ? [LONE_SURROGATE] : HUGE_NUMBERS;
    for (const value of values) bodyVariant(`${missing.path.join('.')} (added) = ${value}`, (fresh) => setAt(fresh, missing.path, value));
  }
  for (const at of objectsIn(sample).filter((path) => path.length <= NAMED_DEPTH)) {
    const where = at.length > 0 ? at.join('.') : 'the body';
    bodyVariant(`field __proto__ in ${where}`, (fresh) => (getAt(fresh, at)[NAME_SLOT] = { polluted: true }), '__proto__');
    bodyVariant(`fields constructor and toString in ${where}`, (fresh) => Object.assign(getAt(fresh, at), { constructor: 'x', toString: 1 }));
    bodyVariant(`a field named with a lone surrogate in ${where}`, (fresh) => (getAt(fresh, at)[`k${LONE_SURROGATE}`] = 'v'));
  }
  return variants;
}

/** The string and number leaves of `value`, by path. */
function leaves(value: Json, path: (string | number)[] = []): { path: (string | number)[]; value: Json }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, [...path, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  return [{ path, value }];
}

/** Paths of the objects in `value`, the body itself included. */
function objectsIn(value: Json, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsIn(item, [...path, i]));
  if (typeof value !== 'object' || value === null) return [];
  return [path, ...Object.entries(value).flatMap(([key, item]) => objectsIn(item, [...path, key]))];
}

/** Fields the schema declares (string or number) that the sample leaves out, where its objects are. */
function absentFields(schema: Schema | undefined, sample: Json, path: (string | number)[]): { path: (string | number)[]; type: string }[] {
  if (!schema || typeof sample !== 'object' || sample === null) return [];
  if (Array.isArray(sample)) return sample.length > 0 ? absentFields(branchOf(schema, 'array')?.items, sample[0], [...path, 0]) : [];
  const object = branchOf(schema, 'object');
  return Object.entries(object?.properties ?? {}).flatMap(([key, property]) => {
    if (key in sample) return absentFields(property, sample[key], [...path, key]);
    const scalar = ['string', 'number', 'integer'].find((type) => branchOf(property, type));
    return scalar ? [{ path: [...path, key], type: scalar === 'string' ? 'string' : 'number' }] : [];
  });
}

function branchOf(schema: Schema, type: string): Schema | undefined {
  if (schema.type === type) return schema;
  return schema.anyOf?.find((branch) => branch.type === type);
}

function getAt(value: Json, path: (string | number)[]): Json {
  return path.reduce((node, key) => node[key], value);
}

function setAt(value: Json, path: (string | number)[], replacement: unknown): void {
  getAt(value, path.slice(0, -1))[path.at(-1)!] = replacement;
}
