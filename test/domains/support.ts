import { createServing } from '../../src/app';
import type { Db } from '../../src/db/db';
import type { TxtResolver } from '../../src/domains/txt-lookup';
import { testApp, TEST_BASE_URL } from '../support/app';

/**
 * DNS from memory: `records` maps a name to its TXT records (each a list of character strings),
 * `failures` makes a name's lookup fail with an error code. A name in neither is NXDOMAIN.
 */
export function fakeDns() {
  const records = new Map<string, string[][]>();
  const failures = new Map<string, string>();
  const lookups: string[] = [];
  const resolveTxt: TxtResolver = async (name) => {
    lookups.push(name);
    const code = failures.get(name);
    if (code) throw Object.assign(new Error(`queryTxt ${code} ${name}`), { code });
    const found = records.get(name);
    if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  return {
    records,
    failures,
    lookups,
    resolveTxt,
    /** Publishes these values as the name's TXT records, replacing what it had. */
    set(name: string, ...values: string[]) {
      records.set(name, values.map((value) => [value]));
    },
  };
}

/** The test app with its resolver replaced by a fakeDns(). */
export async function appWithDns(db: Db, env: Record<string, string> = {}) {
  const t = await testApp(db, env);
  const dns = fakeDns();
  const app = createServing({ ...t.services, resolveTxt: dns.resolveTxt });
  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const url = path.startsWith('http') ? path : `${TEST_BASE_URL}${path}`;
    return app.fetch(new Request(url, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body }));
  };
  return { ...t, app, request, dns };
}
