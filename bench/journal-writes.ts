/**
 * What the click journal costs the event loop that answers redirects, apart from everything else
 * a redirect does: a Bun.serve that works `BENCH_SPIN_US` µs per request (standing in for the
 * handler) and answers a 302 through the answer batch, once with nothing journaled (the
 * reference) and once journaling a click-sized record per request the way /c does (staged, one
 * write per batch, synced every JOURNAL_SYNC_MS). Same load shape as bench:redirect. Prints one
 * JSON line: each server's rate, p50 and p99, and the journal's rate over the reference's.
 *
 *   npm run bench:journal
 *   BENCH_SPIN_US=5 BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_WARMUP=3 (defaults)
 *   JOURNAL_SYNC_MS=100 (default; 0 leaves the journal to the kernel's writeback)
 */
import { openJournal } from '../src/tracking/pipeline/journal/journal';
import { DEFAULT_JOURNAL_SYNC_MS } from '../src/config/defaults';
import type { StagedAppends } from '../src/tracking/pipeline/journal/staging';
import { answerBatch } from '../src/tracking/redirect/answer-batch';
import { CONNECTIONS, drive, DURATION, round, summary, USER_AGENT, WARMUP, type Load } from './redirect-load';
import { removeScratch, scratchDir } from './scratch-dir';

const SPIN_US = Number(process.env.BENCH_SPIN_US ?? 5);
const SYNC_MS = Number(process.env.JOURNAL_SYNC_MS ?? DEFAULT_JOURNAL_SYNC_MS);
const LOCATION = 'https://landing.example.com/p?a=1&b=two&svc_click_id=01KAXXXXXXXXXXXXXXXXXXXXXX';
/** The batcher's share of the work: read and commit what was journaled, release whole segments. */
const CONSUME_EVERY = 100_000;

/** A record shaped like a journaled /l click (about 560 bytes). */
const click = (n: number) => ({
  k: 'c',
  r: {
    id: String(n).padStart(26, '0'),
    org_id: '01M8BMMCT5AGT4P0SBW6A7NBXZ',
    link_id: '01M8BMMCWZ97EEHNBJ3KEM142W',
    created_at: new Date().toISOString(),
    next_hop_url: LOCATION,
    ip: '127.0.0.1',
    user_agent: USER_AGENT,
    route: { rule_index: 19, rule_name: 'match', action: 'url', variant_index: null, page: null },
    latency_ms: 0,
  },
  q: 'utm_source=bench&gclid=bench-gclid&matchtype=e&network=g',
});

/** Nothing staged, nothing lost: the reference's answer batch. */
const NO_JOURNAL: StagedAppends = { stageWhile: (run) => run(), writeStaged: () => {}, stagedLosses: () => 0 };

async function measure(journaled: boolean): Promise<Load> {
  const dir = scratchDir('journal');
  const journal = journaled ? openJournal<object>(dir, { syncMs: SYNC_MS }) : null;
  const batched = answerBatch(journal ?? NO_JOURNAL, { refused: () => new Response(null, { status: 503 }) });
  let n = 0;
  const server = Bun.serve({
    port: 0,
    routes: {
      '/c/:slug': {
        GET: () =>
          batched(() => {
            const end = performance.now() + SPIN_US / 1000;
            while (performance.now() < end);
            if (journal) {
              journal.append(click(n++));
              if (journal.pending() >= CONSUME_EVERY) {
                journal.readLines(CONSUME_EVERY)?.commit();
                journal.release(journal.committed());
              }
            }
            return new Response(null, { status: 302, headers: { Location: LOCATION, 'Cache-Control': 'no-store' } });
          }),
      },
    },
  });
  try {
    const url = `http://127.0.0.1:${server.port}/c/bench?gclid=bench-gclid`;
    await drive(url, WARMUP);
    return await drive(url, DURATION);
  } finally {
    server.stop(true);
    await journal?.close();
    removeScratch(dir);
  }
}

const reference = await measure(false);
console.error(`reference: ${JSON.stringify(summary(reference))}`);
const journal = await measure(true);
console.log(
  JSON.stringify({
    bench: 'journal-writes',
    tool: 'wrk',
    connections: CONNECTIONS,
    duration_s: DURATION,
    spin_us: SPIN_US,
    sync_ms: SYNC_MS,
    reference: summary(reference),
    journal: { ...summary(journal), ratio: round(journal.rps / reference.rps, 3) },
  }),
);
