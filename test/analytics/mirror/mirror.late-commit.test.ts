import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import fc from 'fast-check';
import type { Mirror } from '../../../src/analytics/mirror/mirror';
import type { Db, Queryable } from '../../../src/db/db';
import { openPglite } from '../../../src/db/pglite';
import { openPostgres } from '../../../src/db/postgres';
import { insertClick } from '../../support/clicks';
import { backends, createPostgres } from '../../support/db';
import { eventually } from '../../support/wait';
import { countFor, deferred, newOrg, testMirror } from './mirror.helpers';

// Database boots and DuckDB files on a shared, loaded machine (hooks too); no assertion depends on time.
setDefaultTimeout(30_000);

const FAILED = 'analytics mirror: round failed; retrying';
const RECOVERED = 'analytics mirror: recovered';

async function mirroredIds(mirror: Mirror, org: string): Promise<string[]> {
  const rows = await mirror.query<{ id: string }>('SELECT id FROM clicks WHERE org_id = $1 ORDER BY id', [org]);
  return rows.map((row) => row.id);
}

for (const backend of backends()) {
  describe(`analytics mirror and late commits on ${backend.name}`, async () => {
    const db = await backend.create();

    if (backend.name === 'postgres') {
      test('a row whose transaction commits after a later one is never skipped', async () => {
        const org = newOrg();
        const mirror = await testMirror({ db, tables: ['clicks'] });
        const before = await insertClick(db, { orgId: org });
        await mirror.catchUp();

        // Transaction A inserts a and stays open on one connection ...
        const aInserted = deferred<{ id: string; txid: string }>();
        const releaseA = deferred();
        const transactionA = db.transaction(async (tx) => {
          const id = await insertClick(tx, { orgId: org });
          const [row] = await tx.query<{ txid: string }>('SELECT pg_current_xact_id()::text AS txid');
          aInserted.resolve({ id, txid: row!.txid });
          await releaseA.promise;
        });
        const a = await aInserted.promise;
        let b: string;
        try {
          // ... while B inserts b on another connection and commits first, with a later txid:
          // a cursor that followed committed rows alone would pass a here and never come back.
          b = await insertClick(db, { orgId: org });
          const [bRow] = await db.query<{ txid: string }>('SELECT _txid::text AS txid FROM clicks WHERE id = $1', [b]);
          expect(BigInt(bRow!.txid)).toBeGreaterThan(BigInt(a.txid));

          await mirror.catchUp();
          const [cursor] = await mirror.query<{ txid: number }>("SELECT txid FROM _mirror_cursors WHERE table_name = 'clicks'");
          expect(BigInt(cursor!.txid)).toBeLessThan(BigInt(a.txid));
          expect(await mirroredIds(mirror, org)).not.toContain(a.id);
        } finally {
          releaseA.resolve();
          await transactionA;
        }
        await mirror.catchUp();
        expect(await mirroredIds(mirror, org)).toEqual([before, a.id, b].sort());
        expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 3, ids: 3 });
      });

      test('an open transaction in another database of the server does not hold the mirror back', async () => {
        const { db: other } = await createPostgres();
        const mirror = await testMirror({ db, tables: ['clicks'] });
        const org = newOrg();
        const written = deferred();
        const release = deferred();
        const elsewhere = other.transaction(async (tx) => {
          await insertClick(tx, { orgId: org });
          written.resolve();
          await release.promise;
        });
        await written.promise;
        try {
          const id = await insertClick(db, { orgId: org });
          await mirror.catchUp();
          expect(await mirroredIds(mirror, org)).toEqual([id]);
        } finally {
          release.resolve();
          await elsewhere;
        }
      });

      test('random interleavings of concurrent transactions end with DuckDB equal to Postgres', async () => {
        const mirror = await testMirror({ db, tables: ['clicks'], batchSize: 3 });
        const step = fc.oneof(
          fc.record({ kind: fc.constant('open' as const), slot: fc.nat(2) }),
          fc.record({ kind: fc.constant('write' as const), slot: fc.nat(2) }),
          fc.record({ kind: fc.constant('commit' as const), slot: fc.nat(2) }),
          fc.record({ kind: fc.constant('rollback' as const), slot: fc.nat(2) }),
          fc.record({ kind: fc.constant('update' as const), pick: fc.nat() }),
          fc.record({ kind: fc.constant('catchUp' as const) }),
        );
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 30 }), async (steps) => {
            const org = newOrg();
            const committed = await interleave(db, mirror, org, steps);
            await mirror.catchUp();
            const pg = await db.query<{ id: string; latency_ms: number | null }>(
              'SELECT id, latency_ms FROM clicks WHERE org_id = $1 ORDER BY id',
              [org],
            );
            const duck = await mirror.query('SELECT id, latency_ms FROM clicks WHERE org_id = $1 ORDER BY id', [org]);
            expect(duck).toEqual(pg);
            expect(pg.map((row) => row.id)).toEqual([...committed].sort());
          }),
          { numRuns: 15 },
        );
      });

      test('the mirror survives Postgres refusing connections and catches up afterwards', async () => {
        const { db: target, url, name } = await createPostgres();
        const mirrorDb = openPostgres(url, { max: 1 });
        const admin = openPostgres(process.env.DATABASE_URL!, { max: 1 });
        const logs: string[] = [];
        const mirror = await testMirror({ db: mirrorDb, tables: ['clicks'], intervalMs: 20, log: (message) => logs.push(message) });
        try {
          await mirror.catchUp();
          mirror.start();
          let catchUpWhileRefused: string;
          try {
            await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
            await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
            await eventually(async () => logs.includes(FAILED));
            // Bounded, so that connections are allowed again whatever happens here.
            catchUpWhileRefused = await Promise.race([
              mirror.catchUp().then(
                () => 'copied',
                () => 'failed',
              ),
              Bun.sleep(10_000).then(() => 'still waiting'),
            ]);
          } finally {
            await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
          }
          expect(logs).toContain(FAILED);
          expect(catchUpWhileRefused).toBe('failed');
          const org = newOrg();
          const id = await insertClick(target, { orgId: org });
          await eventually(async () => (await mirroredIds(mirror, org)).length > 0);
          expect(await mirroredIds(mirror, org)).toEqual([id]);
          expect(logs).toContain(RECOVERED);
        } finally {
          await mirror.stop();
          await mirrorDb.close();
          await admin.close();
        }
      });
    }

    if (backend.name === 'pglite') {
      const closed = await openPglite();
      await closed.close();

      test('catchUp during an open transaction waits for it, then copies both rows', async () => {
        const org = newOrg();
        const mirror = await testMirror({ db, tables: ['clicks'] });
        await mirror.catchUp();

        const aInserted = deferred<string>();
        const releaseA = deferred();
        const transactionA = db.transaction(async (tx) => {
          aInserted.resolve(await insertClick(tx, { orgId: org }));
          await releaseA.promise;
        });
        const a = await aInserted.promise;
        // One connection: both wait for A. Had catchUp read past A, a (uncommitted now) would be lost.
        const pending = mirror.catchUp();
        const insertB = insertClick(db, { orgId: org });
        releaseA.resolve();
        await transactionA;
        const b = await insertB;

        expect(await pending).toBeGreaterThanOrEqual(1);
        expect(await mirroredIds(mirror, org)).toContain(a);
        await mirror.catchUp();
        expect(await mirroredIds(mirror, org)).toEqual([a, b].sort());
        expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 2, ids: 2 });
      });

      test('the mirror survives the embedded database being unreachable and catches up once it is back', async () => {
        // The mirror's handle points at the live database, then at a closed instance (every
        // query fails there as it would with the store gone), then at the live one again.
        let current: Queryable = db;
        const handle: Queryable = {
          query: (text, params) => current.query(text, params),
          exec: (script) => current.exec(script),
        };
        const logs: string[] = [];
        const mirror = await testMirror({ db: handle, tables: ['clicks'], intervalMs: 20, log: (message) => logs.push(message) });
        await mirror.catchUp();
        mirror.start();
        current = closed;
        await eventually(async () => logs.includes(FAILED));
        expect(logs).toContain(FAILED);
        await expect(mirror.catchUp()).rejects.toThrow();

        current = db;
        const org = newOrg();
        const id = await insertClick(db, { orgId: org });
        await eventually(async () => (await mirroredIds(mirror, org)).length > 0);
        expect(await mirroredIds(mirror, org)).toEqual([id]);
        expect(logs).toContain(RECOVERED);
      });
    }
  });
}

type Step =
  | { kind: 'open' | 'write' | 'commit' | 'rollback'; slot: number }
  | { kind: 'update'; pick: number }
  | { kind: 'catchUp' };

/**
 * Plays the steps with up to three transactions open at once, each on its own connection, and
 * returns the ids that committed. After every catchUp only committed rows are in DuckDB, once.
 */
async function interleave(db: Db, mirror: Mirror, org: string, steps: Step[]): Promise<string[]> {
  const slots: (OpenTransaction | undefined)[] = [];
  const committed: string[] = [];
  try {
    for (const s of steps) {
      if (s.kind === 'open') slots[s.slot] ??= await openTransaction(db);
      else if (s.kind === 'write') {
        const slot = slots[s.slot];
        if (slot) slot.ids.push(await insertClick(slot.tx, { orgId: org }));
        else committed.push(await insertClick(db, { orgId: org }));
      } else if (s.kind === 'commit' || s.kind === 'rollback') {
        const slot = slots[s.slot];
        if (!slot) continue;
        slots[s.slot] = undefined;
        await slot.finish(s.kind === 'commit');
        if (s.kind === 'commit') committed.push(...slot.ids);
      } else if (s.kind === 'update') {
        const id = committed[s.pick % Math.max(1, committed.length)];
        if (id) await db.query('UPDATE clicks SET latency_ms = coalesce(latency_ms, 0) + 1 WHERE id = $1', [id]);
      } else {
        await mirror.catchUp();
        const ids = await mirroredIds(mirror, org);
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) expect(committed).toContain(id);
      }
    }
    for (const [index, slot] of slots.entries()) {
      if (!slot) continue;
      slots[index] = undefined;
      await slot.finish(true);
      committed.push(...slot.ids);
    }
    return committed;
  } finally {
    // A failed run must not leave a transaction open: it would hold back every later run.
    for (const slot of slots) await slot?.finish(false);
  }
}

interface OpenTransaction {
  tx: Queryable;
  ids: string[];
  finish(commit: boolean): Promise<void>;
}

class Rollback extends Error {}

/** A transaction held open on its own connection until finish(); its writes go through `tx`. */
async function openTransaction(db: Db): Promise<OpenTransaction> {
  const ready = deferred<Queryable>();
  const end = deferred<boolean>();
  const done = db
    .transaction(async (tx) => {
      ready.resolve(tx);
      if (!(await end.promise)) throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return {
    tx: await ready.promise,
    ids: [],
    async finish(commit) {
      end.resolve(commit);
      await done;
    },
  };
}
