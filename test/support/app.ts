import { createServing, type App } from '../../src/app';
import { loadConfig, type Config } from '../../src/config/config';
import type { Db } from '../../src/db/db';
import { createServices, type Services, type ServicesOptions } from '../../src/services';
import { onBeforeClose } from './db';
import { tempDir } from './temp-dir';

export interface TestApp {
  app: App;
  services: Services;
  db: Db;
  config: Config;
  /**
   * The node's own dispatch (createServing): GET /c and /i to their handlers as Bun's router
   * would, the rest to the app. Base http://api.test.local; an absolute `path` picks another host.
   */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}


export const TEST_BASE_URL = 'http://api.test.local';
export const TEST_TRACKING_URL = 'http://track.test.local';

/**
 * An in-process app on `db` (from test/support/db.ts). Environment overrides go through the
 * real config parser. Rate limiting is off unless the test turns it on. `options` leaves out the
 * DuckDB mirror or the background workers (createServices) where a test never reads or waits on them.
 */
export async function testApp(db: Db, env: Record<string, string> = {}, options: Pick<ServicesOptions, 'mirror' | 'workers'> = {}): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: tempDir('test'),
    BASE_URL: TEST_BASE_URL,
    TRACKING_URL: TEST_TRACKING_URL,
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    INGEST_SECRET: 'test-ingest-secret-0123456789',
    RATE_LIMIT: 'off',
    ...env,
  });
  const services = await createServices(config, db, options);
  onBeforeClose(db, () => services.stop());
  const serving = createServing(services);
  const request = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const url = path.startsWith('http') ? path : `${TEST_BASE_URL}${path}`;
    return serving.fetch(new Request(url, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body }));
  };
  return { app: serving.app, services, db, config, request };
}

/** POSTs of JSON to one path, each with its own headers (an API key's): the calls a client's server makes. */
export const poster =
  (t: Pick<TestApp, 'request'>, path: string) =>
  (headers: Record<string, string>, json: unknown): Promise<Response> =>
    t.request(path, { method: 'POST', headers, json });

/** Response bodies in tests are checked field by field; `any` keeps those checks short. */
export const body = async (response: Response): Promise<any> => response.json();
