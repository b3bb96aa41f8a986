import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { ClickRecord, ClickRoute } from '../../src/tracking/click.model';
import { expectSecurityHeaders } from '../support/http';
import { apiKeyOver } from '../support/over-http';
import { waitForOutput, type RunningServer } from '../support/server';
import { eventually } from '../support/wait';
import { e2eBackends, journalDirs, journaledClicks, lockClicksTable, startTrackingServer, type E2eBackend } from './tracking-support';

/**
 * GET /l/{slug} on a node with a tracking listener thread (src/tracking/listeners/): the rules,
 * pages, expiry and click cap answer the same from either thread, and the clicks a listener
 * thread answered reach Postgres with their route. Each request opens its own connection, so
 * the kernel spreads them over both threads; the journals tell which thread answered.
 */
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const INSTAGRAM = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 330.0.0.40.92 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 596234127)';
const APP_STORE = 'https://apps.apple.com/app/id123456789';
const PLAY_STORE = 'https://play.google.com/store/apps/details?id=com.example.app';

const RULES = {
  version: 1,
  rules: [
    // The target carries a stale id: the visit's own replaces it.
    { name: 'news', if: { params: { utm_source: 'news' } }, then: { url: 'https://news.example.com/p?a=1&svc_click_id=stale' } },
    { name: 'ios', if: { os: 'ios' }, then: { store: APP_STORE } },
    { name: 'desktop-qr', if: { os: 'desktop', params: { qr: '*' } }, then: { store: PLAY_STORE } },
  ],
  fallback: { url: 'https://fallback.example.com/' },
};

const route = (rule_index: number | null, rule_name: string | null, action: ClickRoute['action'], page: ClickRoute['page'] = null): ClickRoute => ({
  rule_index,
  rule_name,
  action,
  variant_index: null,
  page,
});

const ID = '[0-9A-Z]{26}';
/** Each kind of visit, the answer it gets, and the route its click records. */
const CASES = [
  { name: 'os rule to the store', ua: IPHONE, query: '', status: 302, location: new RegExp(`^https://apps\\.apple\\.com/app/id123456789\\?svc_click_id=${ID}$`), route: route(1, 'ios', 'store') },
  { name: 'params rule', ua: ANDROID, query: '?utm_source=news', status: 302, location: new RegExp(`^https://news\\.example\\.com/p\\?a=1&svc_click_id=${ID}$`), route: route(0, 'news', 'url') },
  { name: 'fallback', ua: ANDROID, query: '', status: 302, location: new RegExp(`^https://fallback\\.example\\.com/\\?svc_click_id=${ID}$`), route: route(null, null, 'fallback') },
  { name: 'interstitial', ua: INSTAGRAM, query: '', status: 200, location: null, route: route(1, 'ios', 'store', 'interstitial') },
  { name: 'QR page', ua: DESKTOP, query: '?qr=1', status: 200, location: null, route: route(2, 'desktop-qr', 'store', 'qr') },
] as const;
/** Per case: the chance that none of them reaches the listener thread is 1 in 2^24. */
const VISITS_PER_CASE = 24;
/** The capped link's slots, and the visits that claim them one at a time: the chance that the listener thread claims none of those is 1 in 2^20. */
const CAP = 30;
const ONE_BY_ONE = 20;

const fresh = { keepalive: false, redirect: 'manual' } as const;
const json = { 'content-type': 'application/json' };

interface Answer {
  response: Response;
  status: number;
  headers: Headers;
  body: string;
}

async function visitFresh(server: RunningServer, slug: string, query: string, ua: string): Promise<Answer> {
  const response = await fetch(`${server.url}/l/${slug}${query}`, { ...fresh, headers: { 'user-agent': ua } });
  return { response, status: response.status, headers: response.headers, body: await response.text() };
}

async function createSmartLink(server: RunningServer, apiKey: string, fields: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const res = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ kind: 'smart', ...fields }),
  });
  if (res.status !== 201) throw new Error(`create smart link: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; slug: string };
}

async function exportedClicks(server: RunningServer, apiKey: string): Promise<{ id: string; nextHopUrl: string; route: ClickRoute | null }[]> {
  const res = await fetch(`${server.url}/api/v1/clicks?limit=1000`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string; nextHopUrl: string; route: ClickRoute | null }[] }).data;
}

/** Every answer of /l, from either thread: the security headers, no caching, no cookie. */
function expectSmartLinkHeaders(answer: Answer): void {
  expectSecurityHeaders(answer.response);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('set-cookie')).toBeNull();
}

const postgres = (await e2eBackends()).find((backend) => backend.name === 'postgres');
if (postgres) {
  /**
   * Runs `visits` while the clicks table is held, so every click they make is still in the
   * journal of the thread that answered it, and reads the main thread's and the listener's.
   */
  const answeredWhileHeld = async <T>(server: RunningServer, visits: () => Promise<T>) => {
    const release = await lockClicksTable(postgres.db!);
    try {
      const result = await visits();
      const [mainJournal, listenerJournal] = journalDirs(server.dataDir);
      expect(listenerJournal).toBe(join(server.dataDir, 'listeners', '0', 'journal'));
      return { result, byMain: journaledClicks(server.dataDir, [mainJournal!]), byListener: journaledClicks(server.dataDir, [listenerJournal!]) };
    } finally {
      release();
    }
  };

  describe('GET /l on tracking listener threads on postgres', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startTrackingServer({ ...postgres, env: { ...postgres.env, TRACKING_THREADS: '1' } } as E2eBackend);
      await waitForOutput(server, '2 threads answering redirects');
    });
    afterAll(async () => {
      expect(await server.stop('SIGTERM')).toBe(0);
    });

    test(
      'rules, pages and svc_click_id answer alike on both threads; listener clicks reach Postgres with their route',
      async () => {
        const apiKey = await apiKeyOver(server);
        const link = await createSmartLink(server, apiKey, { destination: 'https://shop.example.com/', rules: RULES });
        const { result: answers, byMain, byListener } = await answeredWhileHeld(server, () =>
          Promise.all(
            CASES.flatMap((visit) => Array.from({ length: VISITS_PER_CASE }, async () => ({ case: visit, answer: await visitFresh(server, link.slug, visit.query, visit.ua) }))),
          ),
        );

        const ofLink = (clicks: Map<string, ClickRecord>) => [...clicks.values()].filter((click) => click.link_id === link.id);
        expect(ofLink(byMain).length + ofLink(byListener).length).toBe(CASES.length * VISITS_PER_CASE);
        for (const visit of CASES) {
          const answered = answers.filter((entry) => entry.case === visit).map((entry) => entry.answer);
          for (const answer of answered) {
            expect(answer.status).toBe(visit.status);
            expectSmartLinkHeaders(answer);
            if (visit.location) {
              const location = answer.headers.get('location')!;
              expect(location).toMatch(visit.location);
              expect(decodeURIComponent(location).match(/svc_click_id=/g)).toHaveLength(1);
              // The id in the Location is the id of the click one of the threads journaled, with this route.
              const id = new URL(location).searchParams.get('svc_click_id')!;
              expect((byMain.get(id) ?? byListener.get(id))?.route).toEqual(visit.route);
            } else {
              expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
              expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
            }
          }
          // Every kind of visit was answered by the listener thread at least once.
          const onListener = ofLink(byListener).filter((click) => Bun.deepEquals(click.route, visit.route));
          expect({ case: visit.name, onListener: onListener.length > 0 }).toEqual({ case: visit.name, onListener: true });
        }
        const interstitial = answers.find((entry) => entry.case.route.page === 'interstitial')!.answer.body;
        expect(interstitial).toMatch(new RegExp(`svc_click_id=${ID}`));
        const qr = answers.find((entry) => entry.case.route.page === 'qr')!.answer.body;
        expect(qr).toContain('<svg');
        expect(qr).toContain(`${server.url}/l/${link.slug}?qr=1`);

        // Released: the listener's clicks reach Postgres, and the click export shows their route.
        const expected = CASES.length * VISITS_PER_CASE;
        const exported = await eventually(async () => {
          const clicks = await exportedClicks(server, apiKey);
          return clicks.length === expected && clicks;
        });
        const exportedById = new Map(exported.map((click) => [click.id, click]));
        for (const click of ofLink(byListener)) {
          expect(exportedById.get(click.id)?.route).toEqual(click.route);
          expect(exportedById.get(click.id)?.nextHopUrl).toBe(click.next_hop_url);
        }
        for (const visit of CASES) {
          expect(exported.filter((click) => Bun.deepEquals(click.route, visit.route))).toHaveLength(VISITS_PER_CASE);
        }
      },
      120_000,
    );

    test(
      'an expired link and a reached click cap answer 410 from either thread, and record no click',
      async () => {
        const apiKey = await apiKeyOver(server);
        const expired = await createSmartLink(server, apiKey, { destination: 'https://shop.example.com/', expires_at: '2020-01-01T00:00:00Z', rules: RULES });
        const expiredAnswers = await Promise.all(Array.from({ length: 20 }, () => visitFresh(server, expired.slug, '', IPHONE)));
        for (const answer of expiredAnswers) {
          expect(answer.status).toBe(410);
          expect(JSON.parse(answer.body)).toEqual({ error: 'link expired' });
          expectSecurityHeaders(answer.response);
        }

        // The cap is claimed in Postgres, so it is exact across both threads. One visit at a time
        // first: each takes a slot on whichever thread took its connection, so the listener takes
        // some (a thread whose cache is still cold cannot be outrun); then a burst of the rest.
        const capped = await createSmartLink(server, apiKey, { destination: 'https://capped.example.com/', click_cap: CAP });
        const { result: cappedAnswers, byListener } = await answeredWhileHeld(server, async () => {
          const oneByOne: Answer[] = [];
          for (let i = 0; i < ONE_BY_ONE; i++) oneByOne.push(await visitFresh(server, capped.slug, '', ANDROID));
          const burst = await Promise.all(Array.from({ length: CAP }, () => visitFresh(server, capped.slug, '', ANDROID)));
          return [...oneByOne, ...burst];
        });
        expect([...byListener.values()].filter((click) => click.link_id === capped.id).length).toBeGreaterThan(0);
        expect(cappedAnswers.slice(0, ONE_BY_ONE).map((answer) => answer.status)).toEqual(Array(ONE_BY_ONE).fill(302));
        expect(cappedAnswers.filter((answer) => answer.status === 302)).toHaveLength(CAP);
        const refused = cappedAnswers.filter((answer) => answer.status === 410);
        // The burst of CAP found CAP - ONE_BY_ONE slots left.
        expect(refused).toHaveLength(ONE_BY_ONE);
        for (const answer of refused) {
          expect(JSON.parse(answer.body)).toEqual({ error: 'link click cap reached' });
          expectSecurityHeaders(answer.response);
        }

        const exported = await eventually(async () => {
          const clicks = await exportedClicks(server, apiKey);
          return clicks.length >= CAP && clicks;
        });
        expect(exported.map((click) => new URL(click.nextHopUrl).host)).toEqual(Array(CAP).fill('capped.example.com'));
        expect(exported.map((click) => click.route)).toEqual(Array(CAP).fill(route(null, null, 'destination')));
        const stored = await postgres.db!.query<{ link_id: string; count: number }>(
          'SELECT link_id, count(*)::int AS count FROM clicks WHERE link_id = ANY($1) GROUP BY link_id',
          [[expired.id, capped.id]],
        );
        expect(stored).toEqual([{ link_id: capped.id, count: CAP }]);
      },
      60_000,
    );
  });
}
