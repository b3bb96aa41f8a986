import { describe, expect, test } from 'bun:test';
import { settled } from '../../bench/process-cpu';
import { treeMemory } from '../../bench/process-memory';
import { SECURITY_HEADERS } from '../../src/http/http.plugin';
import { upload, type RawAnswer } from '../support/raw-http';
import { startServer, waitForOutput, type RunningServer } from '../support/server';
import { e2eBackends } from './tracking-support';

/**
 * Oversized bodies on a node with a tracking listener thread (src/http/forwarding.ts): whichever
 * thread's socket takes the connection, the body is refused at 5 MiB with the app's own 413, and
 * the process's memory does not grow with what the clients send. Each upload opens its own
 * connection, so the kernel spreads them over both threads.
 */
const MB = 1_000_000;
const UPLOAD_BYTES = 75 * MB;
/** Twelve connections: the chance that none of them reaches the listener thread is 1 in 4096. */
const UPLOADS = 12;
const RSS_GROWTH_LIMIT = 100 * MB;

/** The resident memory of the whole server process (all its threads), in bytes. */
const residentBytes = (server: RunningServer): number => treeMemory(server.proc.pid).rssMb * 1024 * 1024;

const postgres = (await e2eBackends()).find((backend) => backend.name === 'postgres');
if (postgres) {
  describe('request bodies on a node with a tracking listener thread', () => {
    test(
      'concurrent 75 MB uploads, declared or chunked, get the 413 and the memory stays bounded',
      async () => {
        const server = await startServer({ ...postgres.env, TRACKING_THREADS: '1' });
        try {
          await waitForOutput(server, '2 threads answering redirects');
          // Memory is measured from an idle node: at boot each click writer thread loads its IP
          // data, which on a new DATA_DIR parses the ASN files with a transient 200 MB.
          await settled(server.proc.pid);
          const before = residentBytes(server);
          let peak = before;
          const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(server))), 20);
          let answers: RawAnswer[];
          try {
            answers = await Promise.all(
              Array.from({ length: UPLOADS }, (_, i) => upload(server.port, i % 4 < 2 ? '/api/v1/conversions' : '/register', UPLOAD_BYTES, { declared: i % 2 === 0 })),
            );
          } finally {
            clearInterval(sampler);
          }
          peak = Math.max(peak, residentBytes(server));
          // Either thread's 413 is the app's, to the byte (the Date aside).
          const undated = (answer: RawAnswer) => answer.raw.replace(/\r\nDate: [^\r]*/i, '');
          for (const answer of answers) {
            expect(undated(answer)).toBe(undated(answers[0]!));
            expect(answer.status).toBe(413);
            expect(JSON.parse(answer.body)).toEqual({ error: 'payload too large' });
            expect(answer.headers['content-type']).toBe('application/json');
            for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(answer.headers[name.toLowerCase()]).toBe(value);
          }
          expect(peak - before).toBeLessThan(RSS_GROWTH_LIMIT);
          // The node goes on serving, on either thread.
          const healthy = await Promise.all(Array.from({ length: 10 }, () => fetch(`${server.url}/api/health`, { keepalive: false })));
          expect(healthy.map((res) => res.status)).toEqual(Array(10).fill(200));
          expect(server.output()).not.toContain('forwarding to the main thread failed');
          expect(server.output()).not.toContain('unhandled error');
        } finally {
          expect(await server.stop('SIGTERM')).toBe(0);
        }
      },
      120_000,
    );
  });
}
