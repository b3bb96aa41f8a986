/**
 * Another thread of the node reaching the embedded store over a port (test/db/pglite-thread.test.ts):
 * it writes, runs a transaction, hears a NOTIFY the opener sends, and closes its end.
 */
import { openPgliteOverPort } from '../../src/db/pglite.thread';

declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ port: MessagePort }>) => {
  const db = openPgliteOverPort(event.data.port);
  try {
    await db.query("INSERT INTO t (id) VALUES ('from-thread')");
    const inside = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES ('in-transaction')");
      return tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
    });
    const refused = await db.query("INSERT INTO t (id) VALUES ('from-thread')").then(
      () => null,
      (error: { code?: string }) => error.code ?? 'no code',
    );
    let listening!: Promise<unknown>;
    const heard = new Promise<string>((resolve) => (listening = db.listen('to_thread', resolve)));
    await listening;
    self.postMessage({ kind: 'listening' });
    self.postMessage({ kind: 'wrote', inside: inside[0]!.n, refused });
    self.postMessage({ kind: 'heard', payload: await heard });
  } catch (error) {
    self.postMessage({ kind: 'failed', message: (error as Error).message });
  } finally {
    await db.close();
  }
};
