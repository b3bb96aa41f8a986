import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { ingestClicks, type IngestDeps } from '../../src/edge/ingest.service';
import { capturedClick } from '../../src/tracking/pipeline/click-capture';
import type { CompiledLink } from '../../src/tracking/redirect/link-cache/compiled-link';
import { CAPTURED_PARAMS, type JournaledClick } from '../../src/tracking/tracking.model';

const NOW = new Date('2026-09-02T10:00:00.000Z');
const TRACKING_HOST = 'track.example.com';
const link = (slug: string, overrides: Partial<CompiledLink> = {}): CompiledLink => ({
  id: `link-${slug}`, orgId: 'org-1', campaignId: 'campaign-1', domain: '', slug, kind: 'tracking', status: 'active', serves: true,
  destination: 'https://shop.example.com/landing', landingHosts: null, smart: null, ...overrides,
});
const LINKS = new Map([
  ['active', link('active')],
  ['smart', link('smart', { kind: 'smart', serves: false })],
  ['paused', link('paused', { status: 'paused', serves: false })],
  ['bare', link('bare', { destination: null })],
]);

/**
 * An ingest service over an in-memory link cache, recording what it journals: a click is staged,
 * and counts as journaled once the staged write succeeds (`failWrite` makes the next one fail).
 */
function service() {
  const journaled: { click: JournaledClick; query: string | undefined }[] = [];
  let staged: typeof journaled = [];
  let staging = false;
  let losses = 0;
  const control = { failWrite: false, writes: 0 };
  const deps: IngestDeps = {
    linkCache: { lookup: (host, slug) => (host === TRACKING_HOST ? (LINKS.get(slug) ?? null) : null) },
    clickPipeline: {
      recordClick: (click, query) => void (staging ? staged : journaled).push({ click, query }),
      stageWhile: (run) => {
        staging = true;
        try {
          return run();
        } finally {
          staging = false;
        }
      },
      writeStaged: () => {
        if (staged.length === 0) return;
        control.writes++;
        if (control.failWrite) losses++;
        else journaled.push(...staged);
        staged = [];
      },
      stagedLosses: () => losses,
    },
    clock: () => NOW,
    trackingHost: TRACKING_HOST,
  };
  return { deps, journaled, control };
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const text = fc.string({ unit: 'binary', maxLength: 40 });
/** Mostly what a field may hold, sometimes anything: most rows pass, every check is reached. */
const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown> = text) =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: other, weight: 1 });
const row = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        slug: mostly(fc.constantFrom(...LINKS.keys(), 'unknown')),
        domain: maybe(mostly(fc.constant(TRACKING_HOST))),
        click_id: maybe(mostly(fc.stringMatching(/^[A-Za-z0-9_-]{4,64}$/), fc.oneof(text, fc.integer()))),
        ts: maybe(mostly(fc.date({ min: new Date('2026-07-01'), max: new Date('2026-09-03'), noInvalidDate: true }).map((d) => d.toISOString()))),
        ip: maybe(mostly(fc.oneof(fc.ipV4(), fc.ipV6()))),
        user_agent: maybe(text),
        url: maybe(mostly(fc.webUrl({ withQueryParameters: true, withFragments: true }))),
        gclid: maybe(mostly(text, fc.integer())),
        keyword: maybe(text),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.anything() },
);

describe('ingestClicks (property-based)', () => {
  test('every row is accepted or rejected once; each journaled click is whole and carries its id once', async () => {
    let acceptedInAllRuns = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), async (events) => {
        const { deps, journaled } = service();
        const result = await ingestClicks(deps, events);
        const indexes = result.rejected.map((r) => r.index);
        expect(indexes).toEqual([...new Set(indexes)].sort((a, b) => a - b));
        expect(result.accepted + indexes.length).toBe(events.length);
        expect(journaled).toHaveLength(result.accepted);
        acceptedInAllRuns += result.accepted;
        for (const { error } of result.rejected) expect(error.length).toBeGreaterThan(0);
        const ids = new Set<string>();
        for (const { click } of journaled) {
          expect(click.id).toMatch(/^[A-Za-z0-9_-]{4,64}$/);
          expect(ids.has(click.id)).toBe(false);
          ids.add(click.id);
          expect(LINKS.get(click.link_id!.slice('link-'.length))!.status).toBe('active');
          const url = new URL(click.next_hop_url);
          expect(['http:', 'https:']).toContain(url.protocol);
          expect(url.searchParams.getAll('svc_click_id')).toEqual([click.id]);
          const at = Date.parse(click.created_at);
          expect(at).toBeLessThanOrEqual(NOW.getTime() + 5 * 60_000);
          expect(at).toBeGreaterThanOrEqual(NOW.getTime() - 30 * 24 * 3_600_000);
        }
      }),
      { numRuns: 300 },
    );
    // The generated rows reach the journal too, not only the rejections.
    expect(acceptedInAllRuns).toBeGreaterThan(100);
  });

  test('ad parameters are captured exactly as the same values on a /c query string', async () => {
    const names = Object.keys(CAPTURED_PARAMS) as (keyof typeof CAPTURED_PARAMS)[];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), fc.string({ unit: 'binary', maxLength: 600 })), async (params) => {
        const { deps, journaled } = service();
        expect((await ingestClicks(deps, [{ slug: 'active', ...params }])).accepted).toBe(1);
        const { click, query } = journaled[0]!;
        const viaIngest = capturedClick({ k: 'c', r: click, ...(query ? { q: query } : {}) });
        const redirectQuery = Object.entries(params).map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
        const viaRedirect = capturedClick({ k: 'c', r: click, q: redirectQuery });
        for (const name of names) expect(viaIngest[CAPTURED_PARAMS[name]]).toBe(viaRedirect[CAPTURED_PARAMS[name]]);
      }),
      { numRuns: 300 },
    );
  });

  test('the rows an edge normally sends are all accepted', async () => {
    const { deps, journaled } = service();
    const result = await ingestClicks(deps, [
      { slug: 'active', click_id: 'edge-0001', ts: '2026-09-02T09:59:00Z', ip: '203.0.113.9', user_agent: 'UA', url: 'https://a.example/x?svc_click_id=edge-0001' },
      { slug: 'smart', domain: TRACKING_HOST, url: 'https://b.example/' },
      { slug: 'bare', url: 'https://c.example/' },
    ]);
    expect(result).toEqual({ accepted: 3, rejected: [] });
    expect(journaled.map(({ click }) => [click.link_id, click.campaign_id, click.org_id])).toEqual([
      ['link-active', 'campaign-1', 'org-1'],
      ['link-smart', 'campaign-1', 'org-1'],
      ['link-bare', 'campaign-1', 'org-1'],
    ]);
    expect(journaled[0]!.click.next_hop_url).toBe('https://a.example/x?svc_click_id=edge-0001');
  });

  test('a call\'s clicks are written in one write; if it fails, every row it held is rejected and none accepted', async () => {
    const { deps, journaled, control } = service();
    const rows = [{ slug: 'active' }, { slug: 'unknown' }, { slug: 'active' }];
    expect(await ingestClicks(deps, rows)).toEqual({ accepted: 2, rejected: [{ index: 1, error: 'link not found' }] });
    expect(control.writes).toBe(1);
    control.failWrite = true;
    expect(await ingestClicks(deps, rows)).toEqual({
      accepted: 0,
      rejected: [
        { index: 0, error: 'the click could not be journaled; send this row again' },
        { index: 1, error: 'link not found' },
        { index: 2, error: 'the click could not be journaled; send this row again' },
      ],
    });
    expect(journaled).toHaveLength(2);
  });
});
