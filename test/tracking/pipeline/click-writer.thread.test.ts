import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createClickPipeline } from '../../../src/tracking/pipeline/click-pipeline';
import type { ClickWriter } from '../../../src/tracking/pipeline/click-writer';
import { createClickWriterThread } from '../../../src/tracking/pipeline/click-writer.thread';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import type { JournalEntry } from '../../../src/tracking/tracking.model';
import { backends, createPostgres, onBeforeClose } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { asnCsvDir } from '../../support/asn-csv';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { countRows, makeClick, makeImpression } from '../support';

/** The message a promise rejects with (Bun's expect().rejects never settles for a rejection a worker's message causes). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: Error) => error.message,
  );

// Thread start-up loads the geo database and opens connections; no assertion depends on time.
setDefaultTimeout(30_000);

const SECRET = 'writer-thread-test-secret-0123456789-abcdef';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const linesOf = (entries: JournalEntry[]) => new TextEncoder().encode(entries.map((entry) => JSON.stringify(entry)).join('\n'));
const setAsidePath = () => join(tempDir('writer'), 'refused.jsonl');

/*
 * On Postgres the click pipeline's enrichment and inserts run on a thread of their own
 * (src/tracking/pipeline/click-writer.thread.ts). PGlite lives in the main thread, so there is no
 * thread to test on it; the in-process writer is covered by pipeline.test.ts on both.
 */
for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe(`click writer thread on ${backend.name}`, async () => {
    const { db, url } = await createPostgres();
    const writers: ClickWriter[] = [];
    onBeforeClose(db, () => Promise.all(writers.map((writer) => writer.close())).then(() => {}));
    const thread = (path = setAsidePath()) => {
      const writer = createClickWriterThread({ databaseUrl: url, ipHashSecret: SECRET, setAsidePath: path, ipIntelOptions: {} });
      writers.push(writer);
      return writer;
    };

    test('stores clicks enriched exactly as the in-process writer does, and impressions as given', async () => {
      const { orgId } = await orgWithKey(db);
      const clicks = [makeClick(orgId, { ip: '8.8.8.8', user_agent: IPHONE }), makeClick(orgId, { ip: '66.249.66.1', user_agent: 'Googlebot/2.1' })];
      const impression = makeImpression(orgId);
      await thread().write(linesOf([...clicks.map((r) => ({ k: 'c' as const, r })), { k: 'i', r: impression }]), 3);
      const stored = await db.query<Record<string, unknown>>('SELECT * FROM clicks WHERE org_id = $1 ORDER BY id', [orgId]);
      const ingestion = createIngestion({ ipHasher: createIpHasher(SECRET) });
      const expected = clicks.map((click) => ingestion.enrich(click)).sort((a, b) => a.id.localeCompare(b.id));
      for (const [i, row] of stored.entries()) {
        const want = expected[i]!;
        expect(row).toMatchObject({
          id: want.id, country: want.country, os_family: want.os_family, device_type: want.device_type,
          ip_day_hash: want.ip_day_hash, household_hash: want.household_hash, drop_reason: want.drop_reason, is_bot: want.is_bot,
        });
      }
      expect(stored[0]!.os_family).toBe('iOS');
      expect(stored[0]!.household_hash).toBe(createIpHasher(SECRET).household('8.8.8.8'));
      expect(await countRows(db, 'impressions', orgId)).toBe(1);
    });

    test('writing a batch again stores nothing twice (a journal replay after a crash)', async () => {
      const { orgId } = await orgWithKey(db);
      const lines = linesOf(Array.from({ length: 300 }, () => ({ k: 'c' as const, r: makeClick(orgId) })));
      const writer = thread();
      await writer.write(lines, 300);
      await writer.write(lines, 300);
      expect(await countRows(db, 'clicks', orgId)).toBe(300);
    });

    test('a record the database refuses is set aside by the thread, and the rest of its batch is stored', async () => {
      const { orgId } = await orgWithKey(db);
      const path = setAsidePath();
      const poison = makeClick(orgId, { keyword: 'k\0w' });
      await thread(path).write(linesOf([makeClick(orgId), poison, makeClick(orgId)].map((r) => ({ k: 'c' as const, r }))), 3);
      expect(await countRows(db, 'clicks', orgId)).toBe(2);
      const [line] = readFileSync(path, 'utf8').trim().split('\n').map((text) => JSON.parse(text));
      expect(line).toMatchObject({ kind: 'click', code: '22021', record: { id: poison.id } });
    });

    test('a thread that cannot reach its database fails the batch with the connection error', async () => {
      const broken = createClickWriterThread({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', ipHashSecret: SECRET, setAsidePath: setAsidePath(), ipIntelOptions: {} });
      writers.push(broken);
      const { orgId } = await orgWithKey(db);
      expect(await failure(broken.write(linesOf([{ k: 'c', r: makeClick(orgId) }]), 1))).toMatch(/ECONNREFUSED|connect/i);
    });

    test('the bytes a write is given stay the caller\'s: a view into a larger Buffer is copied, never moved', async () => {
      const { orgId } = await orgWithKey(db);
      const first = linesOf([{ k: 'c', r: makeClick(orgId) }]);
      const second = linesOf([{ k: 'c', r: makeClick(orgId) }]);
      // As a segment read back from its file: one Buffer, each batch a view into it.
      const file = Buffer.concat([first, Buffer.from('\n'), second]);
      const length = file.length;
      const writer = thread();
      await writer.write(file.subarray(0, first.length), 1);
      expect(file.length).toBe(length);
      await writer.write(file.subarray(first.length + 1), 1);
      expect(await countRows(db, 'clicks', orgId)).toBe(2);
    });

    test('a pipeline on the thread writes everything by flush and by stop, and a closed writer refuses more', async () => {
      const { orgId } = await orgWithKey(db);
      const dataDir = tempDir('writer-pipeline');
      let writer: ClickWriter | undefined;
      // Segments of a few batches each: most batches come from segments already closed and read
      // back from their files, several batches from each.
      const pipeline = createClickPipeline(
        { db, dataDir, writer: (path) => (writer = thread(path)) },
        { journal: { segmentBytes: 512 * 1024 } },
      );
      await pipeline.start();
      for (let i = 0; i < 3000; i++) pipeline.recordClick(makeClick(orgId));
      await pipeline.flush();
      expect(await countRows(db, 'clicks', orgId)).toBe(3000);
      for (let i = 0; i < 50; i++) pipeline.recordClick(makeClick(orgId));
      await pipeline.stop();
      expect(await countRows(db, 'clicks', orgId)).toBe(3050);
      expect(await failure(writer!.write(new Uint8Array(), 0))).toBe('click writer is closed');
    });

    test('prepare starts the thread and loads its IP data before any write; the first write uses that thread', async () => {
      const spawned: Worker[] = [];
      const cacheDir = join(tempDir('writer-ipintel'), 'ipintel');
      const writer = createClickWriterThread(
        { databaseUrl: url, ipHashSecret: SECRET, setAsidePath: setAsidePath(), ipIntelOptions: { asnDir: asnCsvDir(), cacheDir } },
        { onSpawn: (worker) => spawned.push(worker) },
      );
      writers.push(writer);
      writer.prepare!();
      writer.prepare!();
      expect(spawned).toHaveLength(1);
      // The ASN table's cache file is the trace of its load: written with no batch sent.
      await eventually(() => existsSync(cacheDir) && readdirSync(cacheDir).some((file) => file.startsWith('asn-')));
      const { orgId } = await orgWithKey(db);
      await writer.write(linesOf([{ k: 'c', r: makeClick(orgId, { ip: '8.8.8.8' }) }]), 1);
      expect(spawned).toHaveLength(1);
      expect((await db.query<{ risk_reasons: string[] }>('SELECT risk_reasons FROM clicks WHERE org_id = $1', [orgId]))[0]!.risk_reasons).toContain('datacenter_ip');
      await writer.close();
      writer.prepare!();
      expect(spawned).toHaveLength(1);
    });

    test('a thread that dies fails the batch it held; the next batch starts a new thread', async () => {
      const { orgId } = await orgWithKey(db);
      const spawned: Worker[] = [];
      const writer = createClickWriterThread({ databaseUrl: url, ipHashSecret: SECRET, setAsidePath: setAsidePath(), ipIntelOptions: {} }, { onSpawn: (worker) => spawned.push(worker) });
      writers.push(writer);
      await writer.write(linesOf([{ k: 'c', r: makeClick(orgId) }]), 1);
      // A crash in the middle of a batch: the batch fails (the pipeline keeps it journaled).
      const held = writer.write(linesOf(Array.from({ length: 5000 }, () => ({ k: 'c' as const, r: makeClick(orgId) }))), 5000);
      spawned[0]!.terminate();
      expect(await failure(held)).toBe('click writer thread exited');
      await writer.write(linesOf([{ k: 'c', r: makeClick(orgId) }]), 1);
      expect(spawned).toHaveLength(2);
      expect(await countRows(db, 'clicks', orgId)).toBeGreaterThanOrEqual(2);
    });

    test('a thread whose write is never answered is ended, and the next batch starts a new thread', async () => {
      // A server that accepts connections and never answers: the driver waits on it for good.
      const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
      try {
        const spawned: Worker[] = [];
        const writer = createClickWriterThread(
          { databaseUrl: `postgres://svc@127.0.0.1:${silent.port}/none`, ipHashSecret: SECRET, setAsidePath: setAsidePath(), ipIntelOptions: {} },
          { onSpawn: (worker) => spawned.push(worker), stalledWriteMs: 1_000 },
        );
        writers.push(writer);
        const { orgId } = await orgWithKey(db);
        expect(await failure(writer.write(linesOf([{ k: 'c', r: makeClick(orgId) }]), 1))).toBe('click writer thread stopped answering');
        expect(await failure(writer.write(linesOf([{ k: 'c', r: makeClick(orgId) }]), 1))).toBe('click writer thread stopped answering');
        expect(spawned).toHaveLength(2);
      } finally {
        silent.stop(true);
      }
    });
  });
}
