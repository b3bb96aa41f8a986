import { expect } from 'bun:test';
import type { Db } from '../../src/db/db';
import { TEST_TRACKING_URL, type TestApp } from '../support/app';
import { expectSecurityHeaders } from '../support/http';

export const ARA = `${TEST_TRACKING_URL}/.well-known/attribution-reporting`;

/** The registration answer every case shares: 200, no body, not cacheable, the security headers. */
export async function expectEmptyRegistration(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('set-cookie')).toBeNull();
  expectSecurityHeaders(response);
}

export async function countRows(db: Db, table: 'ara_sources' | 'ara_reports'): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
}

export function registerSource(t: TestApp, query: string, headers: Record<string, string> = {}, base = ARA): Promise<Response> {
  return t.request(`${base}/register-source${query}`, { headers });
}
