import { createApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { migrate } from './db/migrate';
import { openDb } from './db/open';
import { MAX_BODY_BYTES } from './http/http.plugin';
import { createServices } from './services';

/** boot: config -> db -> migrate -> services -> app -> listen; SIGTERM/SIGINT stop gracefully. */
async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const db = await openDb(config);
  const applied = await migrate(db);
  if (applied.length > 0) console.log(`migrations applied: ${applied.join(', ')}`);
  const services = await createServices(config, db);
  const app = createApp(services);
  app.listen({ port: config.port, maxRequestBodySize: MAX_BODY_BYTES });
  console.log(`listening on :${config.port} (${db.kind}${config.databaseUrl ? '' : ` under ${config.dataDir}`})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests`);
    await app.server?.stop(false);
    await services.stop();
    await db.close();
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
