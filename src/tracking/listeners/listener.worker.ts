/**
 * A tracking listener thread: answers GET /c, /l and /i on the node's port beside the main
 * thread (the kernel spreads connections over both), with its own link and campaign caches, its
 * own click journal, click writer thread and Postgres connections. Every other request is
 * forwarded to the main thread's app (src/http/forwarding.ts). Started by listeners.ts.
 */
import type { Server } from 'bun';
import { createClickCounter } from '../counts/click-counter';
import { openPostgres } from '../../db/postgres';
import { ipIntelOptionsFor, openIpIntel } from '../../ipintel/ip-intel';
import { forwardTo } from '../../http/forwarding';
import { SERVE_OPTIONS } from '../../http/serve-options';
import { linkChangeSubscribers } from '../redirect/link-cache/link-changes';
import { errorMessage } from '../../shared/error-message';
import { collectWhenIdle } from '../../shared/idle-collection';
import { systemClock } from '../../shared/ids';
import { createIpHasher } from '../../shared/crypto/ip-hash';
import { createCampaignCache } from '../redirect/campaign-cache';
import { createClickPipeline } from '../pipeline/click-pipeline';
import { createLinkCache } from '../redirect/link-cache/link-cache';
import type { FromListener, ListenerInit, ToListener } from './listener.protocol';
import { clickPipelineDeps } from '../tracking.boot';
import { nativeTrackingRoutes } from '../redirect/tracking.routes';

declare const self: Worker;

const reply = (message: FromListener) => self.postMessage(message);
/** How often the journal's backlog is reported to the main thread (the mirror waits while there is one). */
const BACKLOG_REPORT_MS = 200;

async function start({ config, dataDir, forward }: ListenerInit) {
  // Two connections: link and campaign lookups on a cache miss. Clicks go through the writer thread's own.
  const db = openPostgres(config.databaseUrl!, { max: 2 });
  const ipHasher = createIpHasher(config.sessionSecret);
  // Link changes reach this thread from the main thread (listeners.ts), not from Postgres.
  const linkChanges = linkChangeSubscribers();
  // This thread's clicks reach the realtime counters the way the main thread's do.
  const clickCounter = createClickCounter({ db, clock: systemClock });
  const clickPipeline = createClickPipeline(clickPipelineDeps(config, db, ipHasher, dataDir), {
    backlogLimit: config.clickBacklog,
    journal: { syncMs: config.journalSyncMs },
    onClick: (click) => clickCounter.count(click.org_id, click.created_at),
  });
  let server: Server<undefined> | undefined;
  try {
    await clickPipeline.start();
    clickCounter.start();
    const linkCache = createLinkCache({ db, trackingHost: config.trackingHost, linkChanges, requireVerifiedDomains: config.domainVerification === 'dns' });
    await linkCache.start();
    const deps = { linkCache, campaignCache: createCampaignCache({ db }), clickPipeline, clock: systemClock, ipHasher, config, db, ipIntel: openIpIntel(ipIntelOptionsFor(config)) };
    const toMainThread = forwardTo(forward);
    const routes = nativeTrackingRoutes(deps);
    server = Bun.serve({
      port: config.port,
      reusePort: true,
      ...SERVE_OPTIONS,
      routes: {
        ...routes,
        '/c/:slug': { GET: handOverWhenUnavailable(routes['/c/:slug'].GET, toMainThread) },
        '/l/:slug': { GET: handOverWhenUnavailable(routes['/l/:slug'].GET, toMainThread) },
      },
      fetch: toMainThread,
    });
    const listening = server;
    let reported = '';
    const report = setInterval(() => {
      const pending = clickPipeline.pending();
      const writer = clickPipeline.writerState();
      if (`${pending} ${writer}` === reported) return;
      reported = `${pending} ${writer}`;
      reply({ kind: 'backlog', pending, writer });
    }, BACKLOG_REPORT_MS);

    self.onmessage = async (event: MessageEvent<ToListener>) => {
      const message = event.data;
      if (message.kind === 'link-changed') {
        await linkChanges.deliver(message.linkId);
        reply({ kind: 'link-applied', seq: message.seq });
      } else if (message.kind === 'stop-serving') {
        await listening.stop(false);
        reply({ kind: 'stopped-serving' });
      } else if (message.kind === 'stop') {
        clearInterval(report);
        linkCache.stop();
        await listening.stop(false);
        await clickPipeline.stop().catch((error) => console.error('tracking listener: stop failed', errorMessage(error)));
        await clickCounter.stop();
        await db.close().catch(() => {});
        reply({ kind: 'stopped', pending: clickPipeline.pending() });
      }
    };
    reply({ kind: 'ready' });
    collectWhenIdle();
  } catch (error) {
    server?.stop(true);
    await clickCounter.stop();
    await clickPipeline.stop().catch(() => {});
    await db.close().catch(() => {});
    reply({ kind: 'failed', message: errorMessage(error) });
  }
}

type Handler = (request: Request & { params: { slug: string } }, server: Server<undefined>) => Response | Promise<Response>;

/**
 * A redirect this thread answers 503 (a link it has not cached while Postgres is away, a journal
 * it cannot write) is handed to the main thread, whose cache may hold the link and whose journal
 * is another file.
 */
function handOverWhenUnavailable(handle: Handler, handOver: (request: Request, server: Server<undefined>) => Promise<Response>): Handler {
  return (request, server) => {
    const answer = handle(request, server);
    if (answer instanceof Promise) return answer.then((response) => (response.status === 503 ? handOver(request, server) : response));
    return answer.status === 503 ? handOver(request, server) : answer;
  };
}

self.onmessage = (event: MessageEvent<ToListener>) => {
  if (event.data.kind === 'init') void start(event.data);
};
