// First: may replace this process with itself under the engine options it needs (runtime-options.ts).
import './apply-runtime-options';
import { createServing } from './app';
import { ConfigError, loadConfig, type Config } from './config/config';
import { configNotices } from './boot-notices';
import { bootProgress } from './boot-progress';
import type { Db } from './db/db';
import { DataDirBusy, lockDataDir, type DataDirLock } from './db/data-dir-lock';
import { migrate } from './db/migrate';
import { openDb } from './db/open';
import { ensureDayPartitions } from './partitions/partitions.service';
import { startForwardReceiver, type ForwardReceiver } from './http/forwarding';
import { SERVE_OPTIONS } from './http/serve-options';
import { ipIntelOptionsFor } from './ipintel/ip-intel';
import { prepareIpData } from './ipintel/ip-data.thread';
import { createServices } from './services';
import { collectWhenIdle } from './shared/idle-collection';
import { startTrackingListeners, type TrackingListeners } from './tracking/listeners/listeners';
import type { Server } from 'bun';

/** In-flight requests get this long after SIGTERM/SIGINT; then the process exits anyway. */
const STOP_DEADLINE_MS = 25_000;

/** Exit codes: 78 (EX_CONFIG) for a bad environment, 1 for any other failed start. */
function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

/**
 * boot: config -> DATA_DIR lock -> db -> migrate -> services -> app -> listen, the IP data prepared
 * in a thread meanwhile and loaded before the first request; SIGTERM/SIGINT stop gracefully.
 */
async function main() {
  const progress = bootProgress();
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(78, `configuration error: ${error.message}`);
    throw error;
  }
  for (const notice of configNotices(config)) console.warn(notice);
  // Held until the process ends, taken before the store, journal or mirror opens. Only the
  // session secret loadConfig may have generated comes first: it is linked into place
  // atomically and meant to be shared (the CLI on Postgres reads it beside a running server).
  let dataDirLock: DataDirLock;
  try {
    dataDirLock = lockDataDir(config);
  } catch (error) {
    if (error instanceof DataDirBusy) fail(1, `cannot start: ${error.message}`);
    fail(1, `cannot lock DATA_DIR: ${(error as Error).message}`);
  }
  // Side by side with the store's opening and the migrations: on a new DATA_DIR both take seconds.
  const ipIntelOptions = ipIntelOptionsFor(config);
  progress('IP data: preparing the ASN table and the city databases in a thread');
  const ipDataReady = prepareIpData(ipIntelOptions).then(
    (rows) => progress(`IP data: ready (${rows.toLocaleString('en')} ASN ranges)`),
    (error: Error) => progress(`IP data: not prepared in a thread (${error.message}); loading it here`),
  );
  progress(config.databaseUrl ? 'database: connecting to Postgres' : `database: opening the embedded store under ${config.dataDir} (a first start creates it)`);
  let db: Db;
  try {
    db = await progress.during(openDb(config, dataDirLock), 'database: still opening (a new embedded store is initialised once, in seconds)');
  } catch (error) {
    fail(1, `cannot open the database: ${(error as Error).message}`);
  }
  try {
    progress('database: checking migrations');
    const applied = await migrate(db, undefined, ({ name, index, pending }) => progress(`migration ${index}/${pending}: ${name}`));
    if (applied.length > 0) console.log(`migrations applied: ${applied.join(', ')}`);
    // Before serving, so today's rows land in day partitions (a row with none lands in the default one).
    const made = await ensureDayPartitions({ db, now: new Date() }, config.partitionsAheadDays);
    if (made.length > 0) progress(`day partitions: ${made.length} made ahead`);
  } catch (error) {
    await db.close().catch(() => {});
    fail(1, `migrations failed: ${(error as Error).message}`);
  }
  // Before the services: on Postgres each click writer thread loads the IP data as it starts, and
  // finds the copy written rather than parsing it again.
  await ipDataReady;
  progress(`services: click pipeline and analytics mirror (${config.dataDir}/analytics.duckdb)`);
  const services = await createServices(config, db);
  /** A start that fails after the services started: they stop, the store closes, the process exits 1. */
  const abandon = async (message: string): Promise<never> => {
    await services.stop().catch(() => {});
    await db.close().catch(() => {});
    fail(1, message);
  };
  // Mapped, not parsed, now the thread wrote the copies: a few milliseconds before the first request.
  try {
    services.ipIntel.load();
  } catch (error) {
    // As when it loaded on first use: the lookups that need the broken file report it, the rest serve.
    console.error(`IP data: loading failed (${(error as Error).message}); the lookups that need it report it`);
  }
  const serving = createServing(services);
  const { app } = serving;
  const sharesPort = config.trackingThreads > 0;
  let server: Server<undefined>;
  let forwarding: ForwardReceiver | undefined;
  try {
    // Tracking listener threads share the port (SO_REUSEPORT). A port someone else holds must
    // still refuse to start, as it does without them, hence the plain bind first.
    if (sharesPort) Bun.serve({ port: config.port, fetch: () => new Response() }).stop(true);
    server = Bun.serve({
      port: config.port,
      reusePort: sharesPort,
      ...SERVE_OPTIONS,
      // The click redirect and the pixel go straight from Bun's router to their handlers.
      routes: serving.routes,
      fetch: serving.fetch,
    });
    // The app reads the socket (client IPs) through its server, as if it had listened itself;
    // for a request a listener thread forwarded, through the address that thread saw.
    forwarding = sharesPort ? startForwardReceiver(serving) : undefined;
    app.server = forwarding ? forwarding.serverFor(server) : server;
  } catch (error) {
    return abandon(`cannot listen on :${config.port}: ${(error as Error).message}`);
  }
  // Each thread of the node gives a burst's garbage back once it is idle; the others start theirs.
  collectWhenIdle();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests`);
    const deadline = Date.now() + STOP_DEADLINE_MS;
    setTimeout(() => fail(1, `${signal}: in-flight work did not finish within ${STOP_DEADLINE_MS} ms; exiting`), STOP_DEADLINE_MS).unref();
    // Order matters: no new requests, then the ones in flight finish (those the listener
    // threads forwarded too), then pipelines flush into the stores, then the stores close
    // (PGlite writes its files on close), then DATA_DIR is let go.
    try {
      // Threads still starting are let start, then stopped like the others.
      const listeners = await listenersStarting.catch(() => undefined);
      // An open realtime stream is a request in flight that never finishes on its own.
      services.realtimeStreams.close();
      await Promise.all([server.stop(false), listeners?.stopServing()]);
      await forwarding?.stop();
      await services.stop({ deadline });
      await db.close();
      dataDirLock.release();
    } catch (error) {
      fail(1, `${signal}: stop failed: ${(error as Error).message}`);
    }
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  // The threads start once the main thread listens and forwards (they hand it what they do not
  // answer themselves), after the signal handlers: a SIGTERM meanwhile still stops gracefully.
  // The services take them as soon as they run, so any stop writes their journals too.
  const listenersStarting: Promise<TrackingListeners | undefined> = forwarding
    ? startTrackingListeners({ config, linkChanges: services.linkChanges, forward: forwarding.target }).then((started) => {
        services.adoptListeners(started);
        return started;
      })
    : Promise.resolve(undefined);
  let listeners: TrackingListeners | undefined;
  try {
    listeners = await listenersStarting;
  } catch (error) {
    if (stopping) return;
    stopping = true;
    server.stop(true);
    return abandon(`cannot start the tracking listener threads: ${(error as Error).message}`);
  }
  const threads = listeners ? `, ${listeners.count + 1} threads answering redirects` : '';
  console.log(`listening on :${config.port} (${db.kind}${config.databaseUrl ? '' : ` under ${config.dataDir}`}${threads})`);
  progress(`ready: ${config.baseUrl} (health: ${config.baseUrl}/api/health)`);
}

await main();
