import { describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createClickPipeline, SET_ASIDE_FILE, type Enrich } from '../../../src/tracking/pipeline/click-pipeline';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import { JournalBusy } from '../../../src/tracking/pipeline/journal/journal-lock';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { arrive, countRows, flakyDb, makeClick, makeImpression } from '../support';

const segments = (dataDir: string) => readdirSync(join(dataDir, 'journal')).filter((name) => name.endsWith('.jsonl'));
const ingestion = createIngestion({ ipHasher: createIpHasher('pipeline-test-secret-0123456789-0123456789') });
const enrich: Enrich = (click) => ingestion.enrich(click);

for (const backend of backends()) {
  describe(`click pipeline on ${backend.name}`, async () => {
    const db = await backend.create();

    describe('happy', () => {
      test('clicks and impressions land in Postgres, enriched, in multi-row batches; committed segments are deleted', async () => {
        const { orgId } = await orgWithKey(db);
        const dataDir = tempDir('pipeline');
        const pipeline = createClickPipeline({ db, dataDir, enrich }, { journal: { segmentBytes: 64 * 1024 } });
        await pipeline.start();
        const clicks = Array.from({ length: 1234 }, () => makeClick(orgId));
        for (const [i, click] of clicks.entries()) {
          pipeline.recordClick(click);
          if (i % 10 === 0) pipeline.recordImpression(makeImpression(orgId));
        }
        await pipeline.flush();
        expect(pipeline.pending()).toBe(0);
        expect(await countRows(db, 'clicks', orgId)).toBe(1234);
        expect(await countRows(db, 'impressions', orgId)).toBe(124);
        const row = (await db.query<Record<string, any>>('SELECT * FROM clicks WHERE id = $1', [clicks[7]!.id]))[0]!;
        expect(row).toMatchObject({ country: 'US', os_family: 'Windows', device_type: 'desktop', params: { utm_source: 'x' } });
        expect(row.ip_day_hash).toMatch(/^[0-9a-f]{64}$/);
        // Once the store has synced (the pipeline's next tick), only the active segment remains.
        await eventually(() => segments(dataDir).length <= 1, { timeoutMs: 10_000, everyMs: 5 });
        await pipeline.stop();
        expect(segments(dataDir)).toEqual([]);
      });

      // PGlite runs each statement on the event loop that answers redirects: smaller statements there.
      test(`a batch is written in statements of ${backend.name === 'pglite' ? 32 : 128} records`, async () => {
        const { orgId } = await orgWithKey(db);
        const statements: number[] = [];
        const counted = Object.create(db) as typeof db;
        // Each statement is a COPY of that many rows (one line each).
        counted.copyFrom = (table, columns, text) => {
          if (table === 'clicks') statements.push(text.split('\n').length - 1);
          return db.copyFrom(table, columns, text);
        };
        const pipeline = createClickPipeline({ db: counted, dataDir: tempDir('pipeline'), enrich }, { intervalMs: 60_000, batchSize: 10_000 });
        await pipeline.start();
        for (let i = 0; i < 300; i++) pipeline.recordClick(makeClick(orgId));
        await pipeline.flush();
        expect(statements).toEqual(backend.name === 'pglite' ? [32, 32, 32, 32, 32, 32, 32, 32, 32, 12] : [128, 128, 44]);
        expect(await countRows(db, 'clicks', orgId)).toBe(300);
        await pipeline.stop();
      });

      test('stop() writes everything still waiting and leaves an empty journal', async () => {
        const { orgId } = await orgWithKey(db);
        const dataDir = tempDir('pipeline');
        const pipeline = createClickPipeline({ db, dataDir, enrich }, { intervalMs: 60_000, batchSize: 10_000 });
        await pipeline.start();
        for (let i = 0; i < 300; i++) pipeline.recordClick(makeClick(orgId));
        expect(await countRows(db, 'clicks', orgId)).toBe(0);
        await pipeline.stop();
        expect(await countRows(db, 'clicks', orgId)).toBe(300);
        expect(readdirSync(join(dataDir, 'journal'))).toEqual([]);
      });

      test('start() replays what a crashed run left, skipping a torn line and rows already written', async () => {
        const { orgId } = await orgWithKey(db);
        const dataDir = tempDir('pipeline');
        const clicks = Array.from({ length: 40 }, () => makeClick(orgId));
        // The crashed run had written the first ten before it died.
        await db.bulkInsert('clicks', ['id', 'org_id', 'created_at', 'next_hop_url'], clicks.slice(0, 10).map((c) => [c.id, c.org_id, c.created_at, c.next_hop_url]));
        mkdirSync(join(dataDir, 'journal'));
        const lines = clicks.map((r) => JSON.stringify({ k: 'c', r }));
        writeFileSync(join(dataDir, 'journal', 'segment-000000000003.jsonl'), `${lines.slice(0, 25).join('\n')}\n`);
        writeFileSync(join(dataDir, 'journal', 'segment-000000000004.jsonl'), `${lines.slice(25).join('\n')}\n{"k":"c","r":{"id":"tor`);
        const pipeline = createClickPipeline({ db, dataDir, enrich });
        await pipeline.start();
        expect(pipeline.pending()).toBe(0);
        expect(await countRows(db, 'clicks', orgId)).toBe(40);
        expect(segments(dataDir)).toEqual([]);
        await pipeline.stop();
      });

      test('a click that enrichment cannot handle is stored as captured', async () => {
        const { orgId } = await orgWithKey(db);
        const broken = makeClick(orgId);
        const pipeline = createClickPipeline({
          db,
          dataDir: tempDir('pipeline'),
          enrich: (click) => {
            if (click.id === broken.id) throw new Error('enrichment bug');
            return enrich(click);
          },
        });
        await pipeline.start();
        pipeline.recordClick(broken);
        pipeline.recordClick(makeClick(orgId));
        await pipeline.flush();
        expect(await countRows(db, 'clicks', orgId)).toBe(2);
        await pipeline.stop();
      });

      test('while clicks keep arriving the batcher keeps writing behind them, and writes the rest once they stop', async () => {
        const { orgId } = await orgWithKey(db);
        const pipeline = createClickPipeline({ db, dataDir: tempDir('pipeline'), enrich }, { backlogLimit: 1_000_000 });
        await pipeline.start();
        const recorded = await arrive(pipeline, orgId, { ms: 1500, perRound: 20, everyMs: 2 });
        // Never starved: part of the burst is already in the database while it is still arriving.
        expect(await countRows(db, 'clicks', orgId)).toBeGreaterThan(0);
        await pipeline.flush();
        expect(await countRows(db, 'clicks', orgId)).toBe(recorded);
        await pipeline.stop();
      });
    });

    describe('errors', () => {
      test('while the database refuses writes, clicks stay journaled on disk, and all land once it is back', async () => {
        const { orgId } = await orgWithKey(db);
        const flaky = flakyDb(db);
        const dataDir = tempDir('pipeline');
        const pipeline = createClickPipeline({ db: flaky, dataDir, enrich }, { journal: { segmentBytes: 32 * 1024 } });
        await pipeline.start();
        flaky.down = true;
        for (let i = 0; i < 500; i++) pipeline.recordClick(makeClick(orgId));
        expect(pipeline.writerState()).toBe('ok');
        await expect(pipeline.flush()).rejects.toThrow('database unavailable');
        expect(pipeline.pending()).toBe(500);
        expect(pipeline.writerState()).toBe('retrying');
        expect(segments(dataDir).length).toBeGreaterThan(5);
        flaky.down = false;
        await pipeline.flush();
        expect(pipeline.writerState()).toBe('ok');
        expect(await countRows(db, 'clicks', orgId)).toBe(500);
        await eventually(() => segments(dataDir).length <= 1, { timeoutMs: 10_000, everyMs: 5 });
        await pipeline.stop();
      });

      test('a record the database refuses is set aside on disk, and the records around it are stored', async () => {
        const { orgId } = await orgWithKey(db);
        const dataDir = tempDir('pipeline');
        const pipeline = createClickPipeline({ db, dataDir, enrich });
        await pipeline.start();
        const clicks = Array.from({ length: 40 }, () => makeClick(orgId));
        // Postgres text cannot hold U+0000: the redirect strips it, so this record can only
        // come from a journal written by something else; it must not hold back the others.
        const poison = makeClick(orgId, { gclid: 'a\0b' });
        clicks.splice(17, 0, poison);
        for (const click of clicks) pipeline.recordClick(click);
        pipeline.recordImpression(makeImpression(orgId));
        await pipeline.flush();
        expect(pipeline.pending()).toBe(0);
        expect(await countRows(db, 'clicks', orgId)).toBe(40);
        expect(await countRows(db, 'impressions', orgId)).toBe(1);
        const setAside = readFileSync(join(dataDir, 'journal', SET_ASIDE_FILE), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
        expect(setAside).toHaveLength(1);
        // 22021: the COPY text holds a byte UTF-8 text in Postgres cannot (the recordset INSERT said 22P05).
        expect(setAside[0]).toMatchObject({ kind: 'click', code: '22021', record: { id: poison.id, gclid: 'a\0b' } });
        // The set-aside file is not a journal segment: a restart does not replay it.
        await pipeline.stop();
        const again = createClickPipeline({ db, dataDir, enrich });
        await again.start();
        expect(again.pending()).toBe(0);
        await again.stop();
      });

      test('a stopped pipeline refuses new records', async () => {
        const pipeline = createClickPipeline({ db, dataDir: tempDir('pipeline'), enrich });
        await pipeline.start();
        await pipeline.stop();
        expect(() => pipeline.recordClick(makeClick('org'))).toThrow('click pipeline is stopped');
      });
    });

    describe('security', () => {
      test('two pipelines never share one journal', async () => {
        const dataDir = tempDir('pipeline');
        const first = createClickPipeline({ db, dataDir, enrich });
        expect(() => createClickPipeline({ db, dataDir, enrich })).toThrow(JournalBusy);
        await first.start();
        await first.stop();
      });
    });
  });
}
