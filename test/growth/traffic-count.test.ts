import { afterAll, describe, expect, test } from 'bun:test';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { readRows } from '../../src/analytics/mirror/mirror-read';
import type { CountRequest } from '../../src/growth/spike';
import { countTraffic } from '../../src/growth/tv-airings.repo';

const T = Date.UTC(2026, 2, 10, 20, 0, 0);
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});
await connection.run('CREATE TABLE clicks (id VARCHAR, org_id VARCHAR, created_at TIMESTAMPTZ, region VARCHAR, drop_reason VARCHAR)');
await connection.run('CREATE TABLE installs (id VARCHAR, org_id VARCHAR, installed_at TIMESTAMPTZ, created_at TIMESTAMPTZ, region VARCHAR)');
await connection.run('CREATE TABLE events (id VARCHAR, org_id VARCHAR, name VARCHAR, occurred_at TIMESTAMPTZ, region VARCHAR)');
const mirror = { query: <R>(sql: string, params: readonly unknown[] = []) => readRows<R>(connection, sql, params) };

interface Visit {
  kind: 'click' | 'bot' | 'install' | 'session_start' | 'purchase';
  org: string;
  at: number;
  region: string | null;
}

async function store(visits: readonly Visit[]) {
  for (const table of ['clicks', 'installs', 'events']) await connection.run(`DELETE FROM ${table}`);
  for (const [n, v] of visits.entries()) {
    const at = new Date(v.at).toISOString();
    if (v.kind === 'click' || v.kind === 'bot') {
      await connection.run('INSERT INTO clicks VALUES ($1, $2, $3::TIMESTAMPTZ, $4, $5)', [String(n), v.org, at, v.region, v.kind === 'bot' ? 'bot' : null]);
    } else if (v.kind === 'install') {
      await connection.run('INSERT INTO installs VALUES ($1, $2, $3::TIMESTAMPTZ, $3::TIMESTAMPTZ, $4)', [String(n), v.org, at, v.region]);
    } else {
      await connection.run('INSERT INTO events VALUES ($1, $2, $3, $4::TIMESTAMPTZ, $5)', [String(n), v.org, v.kind, at, v.region]);
    }
  }
}

/** What countTraffic must answer, by brute force. */
const reference = (visits: readonly Visit[], requests: readonly CountRequest[]) =>
  requests.map(
    (r) =>
      visits.filter(
        (v) =>
          v.org === 'o1' &&
          (v.kind === 'click' || v.kind === 'install' || v.kind === 'session_start') &&
          v.at >= r.from &&
          v.at < r.to &&
          (r.region === null || v.region?.toLowerCase() === r.region),
      ).length,
  );

// Few distinct instants, so visits fall on request ends and on each other.
const instant = fc.integer({ min: 0, max: 12 }).map((k) => T + k * 30_000);
const visitArb = fc.record({
  kind: fc.constantFrom('click', 'bot', 'install', 'session_start', 'purchase'),
  org: fc.constantFrom('o1', 'o1', 'o2'),
  at: instant,
  region: fc.constantFrom(null, 'Bavaria', 'BAVARIA', 'Hesse', 'Île-de-France'),
}) as fc.Arbitrary<Visit>;
const requestArb = fc
  .record({ from: instant, length: fc.integer({ min: 1, max: 8 }), region: fc.constantFrom(null, 'bavaria', 'hesse', 'île-de-france', 'saxony') })
  .map(({ from, length, region }): CountRequest => ({ from, to: from + length * 30_000, region }));

describe('countTraffic on DuckDB', () => {
  test('half-open windows, ends on visits, regions lower-cased, other organizations and dropped clicks left out', async () => {
    const visits: Visit[] = [
      { kind: 'click', org: 'o1', at: T, region: 'Bavaria' },
      { kind: 'click', org: 'o1', at: T + 60_000, region: null },
      { kind: 'session_start', org: 'o1', at: T + 30_000, region: 'BAVARIA' },
      { kind: 'bot', org: 'o1', at: T + 30_000, region: null },
      { kind: 'click', org: 'o2', at: T + 30_000, region: 'Bavaria' },
    ];
    await store(visits);
    const requests: CountRequest[] = [
      { from: T, to: T + 60_000, region: null },
      { from: T, to: T + 60_000, region: 'bavaria' },
      { from: T + 1, to: T + 60_001, region: null },
      { from: T, to: T + 60_000, region: 'hesse' },
    ];
    expect(await countTraffic(mirror, 'o1', requests)).toEqual([2, 2, 2, 0]);
  });

  test('property: the same counts as brute force', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(visitArb, { maxLength: 40 }), fc.array(requestArb, { minLength: 1, maxLength: 12 }), async (visits, requests) => {
        await store(visits);
        expect(await countTraffic(mirror, 'o1', requests)).toEqual(reference(visits, requests));
      }),
      { numRuns: 60 },
    );
  });
});
