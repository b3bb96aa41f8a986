import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/config';
import { listenerDataDir } from '../../../src/tracking/listeners/listener-journals';
import { startTrackingListeners } from '../../../src/tracking/listeners/listeners';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';

/*
 * The main thread's supervision of tracking listener threads (src/tracking/listeners/listeners.ts), with a
 * stand-in thread script: a thread that dies is started again on the same data directory (its
 * journal), link changes reach the new thread, and stop ends it. The real thread is covered end
 * to end in test/e2e/tracking.listeners.test.ts.
 */
describe('tracking listener supervision', () => {
  test('a thread that dies is started again on its own directory, and the new one gets link changes', async () => {
    const dataDir = tempDir('listeners');
    const config = loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'listener-test-secret-that-is-long-enough-0123' });
    let relay: ((linkId: string) => unknown) | undefined;
    const linkChanges = {
      subscribe(listener: (linkId: string) => unknown) {
        relay = listener;
        return () => (relay = undefined);
      },
    };
    const dir = listenerDataDir(dataDir, 0);
    const events = () => (existsSync(join(dir, 'events')) ? readFileSync(join(dir, 'events'), 'utf8').trim().split('\n') : []);

    const listeners = await startTrackingListeners(
      { config, linkChanges, forward: { url: 'http://127.0.0.1:9', token: 'test' }, workerUrl: new URL('./listener.stand-in.ts', import.meta.url).href },
      1,
    );
    try {
      expect(events()).toEqual(['started']);
      await eventually(() => listeners.pending() === 1);
      await relay!('link-1');
      expect(events()).toEqual(['started', 'link link-1']);

      writeFileSync(join(dir, 'crash-now'), '');
      await eventually(() => events().filter((line) => line === 'started').length === 2);
      expect(events()).toEqual(['started', 'link link-1', 'crashed', 'started']);
      // A change reaches threads the supervisor has taken as ready; wait for the new one's.
      await eventually(() => listeners.pending() === 2);

      await relay!('link-2');
      expect(events().at(-1)).toBe('link link-2');
    } finally {
      await listeners.stop();
    }
    expect(events().at(-1)).toBe('stopped');
    expect(relay).toBeUndefined();
  }, 30_000);
});
