import { createApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import type { Db } from './db/db';
import { EmbeddedStoreBusy } from './db/embedded-lock';
import { migrate } from './db/migrate';
import { openDb } from './db/open';
import { SOCKET_BODY_BACKSTOP_BYTES } from './http/http.plugin';
import { createServices } from './services';
import { nativeTrackingRoutes } from './tracking/tracking.routes';
import type { Server } from 'bun';

/** In-flight requests get this long after SIGTERM/SIGINT; then the process exits anyway. */
const STOP_DEADLINE_MS = 25_000;

/** Exit codes: 78 (EX_CONFIG) for a bad environment, 1 for any other failed start. */
function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

/** boot: config -> db -> migrate -> services -> app -> listen; SIGTERM/SIGINT stop gracefully. */
async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(78, `configuration error: ${error.message}`);
    throw error;
  }
  let db: Db;
  try {
    db = await openDb(config);
  } catch (error) {
    if (error instanceof EmbeddedStoreBusy) fail(1, `cannot start: ${error.message}`);
    fail(1, `cannot open the database: ${(error as Error).message}`);
  }
  try {
    const applied = await migrate(db);
    if (applied.length > 0) console.log(`migrations applied: ${applied.join(', ')}`);
  } catch (error) {
    await db.close().catch(() => {});
    fail(1, `migrations failed: ${(error as Error).message}`);
  }
  const services = await createServices(config, db);
  const app = createApp(services);
  let server: Server<undefined>;
  try {
    server = Bun.serve({
      port: config.port,
      maxRequestBodySize: SOCKET_BODY_BACKSTOP_BYTES,
      // The click redirect and the pixel go straight from Bun's router to their handlers.
      routes: nativeTrackingRoutes(services),
      fetch: (request) => app.fetch(request),
    });
    // The app reads the socket (client IPs) through its server, as if it had listened itself.
    app.server = server;
  } catch (error) {
    await services.stop().catch(() => {});
    await db.close().catch(() => {});
    fail(1, `cannot listen on :${config.port}: ${(error as Error).message}`);
  }
  console.log(`listening on :${config.port} (${db.kind}${config.databaseUrl ? '' : ` under ${config.dataDir}`})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests`);
    setTimeout(() => fail(1, `${signal}: in-flight work did not finish within ${STOP_DEADLINE_MS} ms; exiting`), STOP_DEADLINE_MS).unref();
    // Order matters: no new requests, then the ones in flight finish, then pipelines flush
    // into the stores, then the stores close (PGlite writes its files on close).
    try {
      await server.stop(false);
      await services.stop();
      await db.close();
    } catch (error) {
      fail(1, `${signal}: stop failed: ${(error as Error).message}`);
    }
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
