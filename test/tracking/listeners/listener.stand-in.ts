/**
 * A stand-in for listener.worker.ts that speaks the same protocol without serving anything, so
 * test/tracking/listeners/listeners.test.ts can supervise threads that die. It logs what it is told to
 * `events` in its data directory, and exits (as a thread that crashed) when a file named
 * `crash-now` appears there. Its backlog is the number of times a thread has started on that
 * directory, so the test can tell when the supervisor has taken the new thread as ready (the
 * backlog message follows the ready message).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FromListener, ToListener } from '../../../src/tracking/listeners/listener.protocol';

declare const self: Worker;
const send = (message: FromListener) => self.postMessage(message);
let dataDir = '';
const log = (line: string) => appendFileSync(join(dataDir, 'events'), `${line}\n`);

self.onmessage = (event: MessageEvent<ToListener>) => {
  const message = event.data;
  if (message.kind === 'init') {
    dataDir = message.dataDir;
    mkdirSync(dataDir, { recursive: true });
    log('started');
    send({ kind: 'ready' });
    const starts = readFileSync(join(dataDir, 'events'), 'utf8').split('\n').filter((line) => line === 'started').length;
    send({ kind: 'backlog', pending: starts, writer: 'ok' });
    setInterval(() => {
      const trigger = join(dataDir, 'crash-now');
      if (!existsSync(trigger)) return;
      rmSync(trigger);
      log('crashed');
      process.exit(1);
    }, 20);
  } else if (message.kind === 'link-changed') {
    log(`link ${message.linkId}`);
    send({ kind: 'link-applied', seq: message.seq });
  } else if (message.kind === 'stop-serving') {
    send({ kind: 'stopped-serving' });
  } else if (message.kind === 'stop') {
    log('stopped');
    send({ kind: 'stopped', pending: 0 });
  }
};
