import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createServing } from '../../src/app';
import { loadConfig } from '../../src/config/config';
import { rateLimitGroup, type RateLimiter } from '../../src/http/rate-limit';
import { createServices } from '../../src/services';
import { TEST_BASE_URL } from '../support/app';
import { backends, onBeforeClose } from '../support/db';
import { tempDir } from '../support/temp-dir';

// PGlite boots and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

/** The Limits table, one concrete path per row (routes still to come answer 404 until they land). */
const LIMITED_PATHS: [method: string, path: string, group: string][] = [
  ['POST', '/api/sdk/v1/install', 'sdk'],
  ['POST', '/api/protect/beacon', 'beacon'],
  ['POST', '/api/v1/links', 'v1'],
  ['POST', '/postback', 'postback'],
  ['POST', '/api/mcp', 'mcp'],
  ['POST', '/api/skan/postback', 'skan'],
  ['POST', '/login', 'auth'],
  ['POST', '/register', 'auth'],
  // Not in the spec's table: password changes share the sign-in budget.
  ['POST', '/api/dashboard/password', 'auth'],
];

/** `path` with a trailing slash, and with each of its slashes doubled in turn. */
function misspellings(path: string): string[] {
  const variants = [`${path}/`];
  for (let i = 0; i < path.length; i++) if (path[i] === '/') variants.push(`${path.slice(0, i)}/${path.slice(i)}`);
  return variants;
}

/** The whole app, with a limiter that allows everything and records the group each request was counted in. */
async function recordingApp() {
  const db = await backends()[0]!.create();
  const config = loadConfig({
    DATA_DIR: tempDir('path-limits'),
    BASE_URL: TEST_BASE_URL,
    SESSION_SECRET: 'path-limits-test-session-secret-0123456789',
    RATE_LIMIT: 'on',
  });
  const services = await createServices(config, db);
  await services.rateLimiter.close();
  let counted: string[] = [];
  const recorder: RateLimiter = {
    async hit(key) {
      counted.push(key.slice(0, key.indexOf(':')));
      return { allowed: true, retryAfter: 60 };
    },
    async close() {},
  };
  services.rateLimiter = recorder;
  onBeforeClose(db, () => services.stop());
  const app = createServing(services);
  /** Sends one request; answers its status and the groups it was counted in. */
  const send = async (method: string, url: string) => {
    counted = [];
    const json = method !== 'GET' && method !== 'DELETE';
    const response = await app.fetch(
      new Request(url, { method, headers: json ? { 'content-type': 'application/json' } : {}, body: json ? '{}' : undefined }),
    );
    return { status: response.status, body: await response.text(), counted };
  };
  return { app, send };
}

describe('the path that is routed is the path that is limited', async () => {
  const { app, send } = await recordingApp();

  test('every path of the Limits table counts in its group, and its misspellings answer 404', async () => {
    for (const [method, path, group] of LIMITED_PATHS) {
      expect(rateLimitGroup(path)?.group).toBe(group);
      expect({ path, counted: (await send(method, `${TEST_BASE_URL}${path}`)).counted }).toEqual({ path, counted: [group] });
      for (const variant of misspellings(path)) {
        const answer = await send(method, `${TEST_BASE_URL}${variant}`);
        expect({ variant, status: answer.status, body: answer.body }).toEqual({ variant, status: 404, body: '{"error":"not found"}' });
      }
    }
  });

  test('no route of the app is reachable under a trailing or a repeated slash', async () => {
    for (const route of app.app.routes) {
      const path = route.path.replace(/:[^/]+/g, 'x1234').replace('*', 'x');
      const exact = await send(route.method, `${TEST_BASE_URL}${path}`);
      expect({ path, counted: exact.counted }).toEqual({ path, counted: rateLimitGroup(path) ? [rateLimitGroup(path)!.group] : [] });
      for (const variant of misspellings(path)) {
        const answer = await send(route.method, `${TEST_BASE_URL}${variant}`);
        expect({ variant, method: route.method, status: answer.status }).toEqual({ variant, method: route.method, status: 404 });
      }
    }
  });

  test('security: a short Host does not shift the routed path away from the limited one', async () => {
    // The router finds the path after the host by position; `Host: ab` with `/x/login` reaches /login.
    const cases: [url: string, group: string][] = [['http://ab/x/login', 'auth'], ['http://a/xy/register', 'auth'], ['http://ab/x/postback', 'postback']];
    for (const [url, group] of cases) {
      const answer = await send('POST', url);
      expect({ url, routed: answer.status !== 404, counted: answer.counted }).toEqual({ url, routed: true, counted: [group] });
    }
  });
});
