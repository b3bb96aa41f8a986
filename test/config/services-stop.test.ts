import { describe, expect, test } from 'bun:test';
import type { Db } from '../../src/db/db';
import { testApp } from '../support/app';
import { backends } from '../support/db';

/** `db`, counting the LISTENs and the postback worker's claims made through it. */
function watched(db: Db) {
  const seen = { listens: 0, claims: 0 };
  const wrapped = new Proxy(db, {
    get(target, property) {
      if (property === 'listen') return (...args: Parameters<Db['listen']>) => (seen.listens++, target.listen(...args));
      if (property === 'query') {
        return (...args: Parameters<Db['query']>) => {
          if (args[0].includes('postback_deliveries')) seen.claims++;
          return target.query(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { seen, wrapped };
}

/*
 * services.stop() (src/services.ts) stops every part even when one of them fails, so no poller
 * is left running against a database that is about to close; the failure is still reported.
 */
for (const backend of backends()) {
  describe(`stopping the services on ${backend.name}`, async () => {
    const db = await backend.create();

    test('a part that fails to stop does not keep the others running, and its error is thrown', async () => {
      const { services } = await testApp(db);
      const stopped: string[] = [];
      const watch = (name: string, part: { stop(): Promise<void> }) => {
        const stop = part.stop.bind(part);
        part.stop = async () => {
          stopped.push(name);
          await stop();
        };
      };
      const pipelineStop = services.clickPipeline.stop.bind(services.clickPipeline);
      services.clickPipeline.stop = async () => {
        await pipelineStop();
        throw new Error('flush refused');
      };
      watch('postbacks', services.postbackWorker);
      watch('late matcher', services.lateMatcher);
      watch('pending beacons', services.pendingBeacons);
      watch('link changes', services.linkChanges);
      watch('key changes', services.keyChanges);
      watch('mirror', services.mirror);

      await expect(services.stop()).rejects.toThrow('flush refused');
      expect(stopped).toEqual(['postbacks', 'late matcher', 'pending beacons', 'link changes', 'key changes', 'mirror']);
      await expect(services.mirror.catchUp()).rejects.toThrow('analytics mirror is stopped');
    });

    test('left out, the mirror refuses reads and the workers do not run; stop() still succeeds', async () => {
      const left = watched(db);
      const { services } = await testApp(left.wrapped, {}, { mirror: false, workers: false });
      const kept = watched(db);
      const control = await testApp(kept.wrapped);
      // The postback worker claims at once when started; nobody else touches postback_deliveries.
      await Bun.sleep(100);
      // Link changes and key changes each listen on their channel.
      expect(kept.seen).toMatchObject({ listens: 2 });
      expect(kept.seen.claims).toBeGreaterThan(0);
      expect(left.seen).toEqual({ listens: 0, claims: 0 });
      await expect(services.mirror.catchUp()).rejects.toThrow('analytics mirror is off on this node');
      await expect(services.mirror.query('SELECT 1')).rejects.toThrow('analytics mirror is off on this node');
      expect(await services.postbackWorker.runOnce()).toBe(0);
      expect(left.seen.claims).toBeGreaterThan(0);
      await services.stop();
      await control.services.stop();
    });
  });
}
