import { describe, expect, test } from 'bun:test';
import { createClickCounter, MINUTE_MS, minuteOf } from '../../src/tracking/counts/click-counter';
import { realtimeSnapshot } from '../../src/analytics/realtime';
import type { Queryable } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import { body, TEST_TRACKING_URL, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertConversion, insertInstall } from '../support/facts';
import { insertApp, insertLink } from '../support/fixtures';
import { eventually } from '../support/wait';
import { registerAccount } from '../protect/support';
import { ingest } from '../edge/support';

const decoder = new TextDecoder();

/** Reads server-sent events off a stream: `next()` the next `realtime` event's data, comments counted. */
function events(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  let buffer = '';
  let comments = 0;
  return {
    reader,
    comments: () => comments,
    async next(): Promise<any> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) comments++;
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (block.includes('event: realtime') && data) return JSON.parse(data);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value);
      }
    },
  };
}

for (const backend of backends()) {
  describe(`GET /api/dashboard/realtime on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const realtime = (cookie: string, init: RequestInit = {}) => t.request('/api/dashboard/realtime', { ...init, headers: { cookie, ...(init.headers as Record<string, string>) } });
    const click = async (slug: string) => {
      const res = await t.request(`${TEST_TRACKING_URL}/c/${slug}`);
      expect(res.status).toBe(302);
    };

    test('15 minutes, oldest first, the current one last, all zero for a new organization', async () => {
      const me = await registerAccount(t);
      const res = await realtime(me.cookie);
      expect(res.status).toBe(200);
      const counters = await body(res);
      expect(counters).toMatchObject({ window_minutes: 15, clicks: 0, installs: 0, conversions: 0 });
      expect(counters.per_minute).toHaveLength(15);
      const minutes = counters.per_minute.map((entry: { minute: string }) => Date.parse(entry.minute));
      expect(minutes.at(-1)).toBeGreaterThanOrEqual(minuteOf(Date.now()) - MINUTE_MS);
      for (let i = 1; i < 15; i++) expect(minutes[i] - minutes[i - 1]).toBe(MINUTE_MS);
    });

    test('a click counts the moment it is answered, installs and conversions once stored, only in the window', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const { slug } = await insertLink(db, me.orgId);
      const { slug: theirSlug } = await insertLink(db, them.orgId);
      const { appId } = await insertApp(db, me.orgId);
      await click(slug);
      await click(slug);
      await click(theirSlug);
      // Whether the timer has added them to the shared rows yet or not, they count once.
      expect((await realtimeSnapshot(t.services, me.orgId)).clicks).toBe(2);
      await insertInstall(db, { orgId: me.orgId, appId, installedAt: new Date() });
      await insertInstall(db, { orgId: me.orgId, appId, installedAt: new Date(), createdAt: new Date(Date.now() - 16 * MINUTE_MS) });
      await insertConversion(db, { orgId: me.orgId, createdAt: new Date() });
      await insertConversion(db, { orgId: them.orgId, createdAt: new Date() });
      const counters = await body(await realtime(me.cookie));
      expect(counters).toMatchObject({ clicks: 2, installs: 1, conversions: 1 });
      expect(counters.per_minute.at(-1)).toMatchObject({ clicks: 2, installs: 1, conversions: 1 });
      await t.services.clickCounter.flush();
      expect(await body(await realtime(me.cookie))).toMatchObject({ clicks: 2, installs: 1, conversions: 1 });
      expect(await body(await realtime(them.cookie))).toMatchObject({ clicks: 1, installs: 0, conversions: 1 });
    });

    test("an edge worker's clicks count on the minute of their own time; older than the window, not at all", async () => {
      const me = await registerAccount(t);
      const { slug } = await insertLink(db, me.orgId);
      const fiveAgo = new Date(Date.now() - 5 * MINUTE_MS);
      const res = await ingest(t, [{ slug, ts: fiveAgo.toISOString() }, { slug, ts: new Date(Date.now() - 20 * MINUTE_MS).toISOString() }]);
      expect(res.status).toBe(200);
      const counters = await body(await realtime(me.cookie));
      expect(counters.clicks).toBe(1);
      const entry = counters.per_minute.find((m: { minute: string }) => Date.parse(m.minute) === minuteOf(fiveAgo.getTime()));
      expect(entry.clicks).toBe(1);
    });

    test('another node counts this node\'s clicks once its timer adds them to the shared rows, without a flush', async () => {
      const other = await testApp(db, {}, { mirror: false, workers: false });
      const me = await registerAccount(t);
      const { slug } = await insertLink(db, me.orgId);
      await click(slug);
      await eventually(async () => (await body(await other.request('/api/dashboard/realtime', { headers: { cookie: me.cookie } }))).clicks === 1);
    });

    test('the event stream sends the counters, then each change; it ends when the client leaves', async () => {
      const me = await registerAccount(t);
      const { slug } = await insertLink(db, me.orgId);
      const leave = new AbortController();
      const res = await realtime(me.cookie, { headers: { accept: 'text/event-stream' }, signal: leave.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const stream = events(res.body!);
      expect((await stream.next()).clicks).toBe(0);
      await click(slug);
      expect((await stream.next()).clicks).toBe(1);
      expect(t.services.realtimeStreams.size()).toBe(1);
      leave.abort();
      await eventually(() => t.services.realtimeStreams.size() === 0);
      expect(await stream.reader.read().then((r) => r.done, () => true)).toBe(true);
    });

    test('no session or a forged one: 401, for the stream too', async () => {
      expect((await t.request('/api/dashboard/realtime')).status).toBe(401);
      const res = await t.request('/api/dashboard/realtime', { headers: { accept: 'text/event-stream', cookie: 'svc_session=x.y.z' } });
      expect(res.status).toBe(401);
      expect(await body(res)).toEqual({ error: 'unauthorized' });
    });
  });

  describe(`realtime streams on a stopping node (${backend.name})`, async () => {
    const db = await backend.create();

    test('closing the streams ends every open one, and new ones end at once', async () => {
      const t = await testApp(db, {}, { mirror: false, workers: false });
      const me = await registerAccount(t);
      const res = await t.request('/api/dashboard/realtime', { headers: { cookie: me.cookie, accept: 'text/event-stream' } });
      const stream = events(res.body!);
      await stream.next();
      t.services.realtimeStreams.close();
      await expect(stream.next()).rejects.toThrow('stream ended');
      const late = await t.request('/api/dashboard/realtime', { headers: { cookie: me.cookie, accept: 'text/event-stream' } });
      expect((await late.body!.getReader().read()).done).toBe(true);
    });

    test('heartbeats keep a quiet stream alive', async () => {
      const { createRealtimeStreams } = await import('../../src/dashboard/realtime/realtime-streams');
      const streams = createRealtimeStreams(async () => ({ same: true }), { pollMs: 20, heartbeatMs: 30 });
      const stream = events(streams.open('org', new AbortController().signal));
      expect(await stream.next()).toEqual({ same: true });
      await Bun.sleep(200);
      streams.close();
      await expect(stream.next()).rejects.toThrow('stream ended');
      expect(stream.comments()).toBeGreaterThanOrEqual(2);
    });
  });

  describe(`click counter (${backend.name})`, async () => {
    const db = await backend.create();

    test('counts are added to the shared rows once, and kept when adding fails', async () => {
      const orgId = `org_${newId()}`;
      const now = Date.now();
      const counter = createClickCounter({ db, clock: () => new Date(now), flushMs: 60_000 });
      counter.count(orgId, new Date(now).toISOString());
      counter.count(orgId, now - MINUTE_MS);
      counter.count(orgId, now - 16 * MINUTE_MS);
      expect(counter.unflushed(orgId).reduce((sum, m) => sum + m.count, 0)).toBe(2);
      const snapshot = () => realtimeSnapshot({ db, clock: () => new Date(now), clickCounter: counter }, orgId);
      expect((await snapshot()).clicks).toBe(2);
      await counter.flush();
      expect(counter.unflushed(orgId)).toEqual([]);
      expect((await snapshot()).clicks).toBe(2);
      counter.count(orgId, now);
      const failing = createClickCounter({ db: { query: () => Promise.reject(new Error('down')), exec: async () => {} }, clock: () => new Date(now) });
      failing.count(orgId, now);
      await failing.flush();
      expect(failing.unflushed(orgId)).toEqual([{ minute: minuteOf(now), count: 1 }]);
      await counter.stop();
      const rows = await db.query<{ clicks: number }>('SELECT clicks FROM realtime_clicks WHERE org_id = $1 ORDER BY minute', [orgId]);
      expect(rows.map((row) => Number(row.clicks))).toEqual([1, 2]);
    });

    test('an add that falls while the shared rows are being read neither hides nor doubles a click', async () => {
      const orgId = `org_${newId()}`;
      const now = Date.now();
      // The shared rows come back late: an add asked for meanwhile would commit between the read and the local counts.
      const slowReads: Queryable = {
        query: (async (sql: string, params?: readonly unknown[]) => {
          const rows = await db.query(sql, params);
          if (sql.includes('FROM realtime_clicks')) await Bun.sleep(50);
          return rows;
        }) as Queryable['query'],
        exec: (script) => db.exec(script),
      };
      const counter = createClickCounter({ db, clock: () => new Date(now), flushMs: 60_000 });
      const snapshot = () => realtimeSnapshot({ db: slowReads, clock: () => new Date(now), clickCounter: counter }, orgId);
      for (let round = 1; round <= 3; round++) {
        counter.count(orgId, now);
        counter.count(orgId, now);
        const reading = snapshot();
        await Bun.sleep(5);
        const adding = counter.flush();
        const during = snapshot();
        expect((await reading).clicks).toBe(2 * round);
        await adding;
        expect((await during).clicks).toBe(2 * round);
        expect(counter.unflushed(orgId)).toEqual([]);
      }
    });
  });
}
