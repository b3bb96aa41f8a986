/**
 * The click writer thread: enrichment (user agent, geo, crawler ranges, IP hashes) and the
 * inserts of journaled records, on its own event loop and its own way to the store (Postgres
 * connections, or a port to the embedded store's thread), so the main thread spends its time
 * answering redirects. Started by click-writer.thread.ts.
 */
import { errorCode } from '../../db/errors';
import { openThreadStore } from '../../db/thread-store';
import { errorMessage } from '../../shared/error-message';
import { collectWhenIdle } from '../../shared/idle-collection';
import { createIpHasher } from '../../shared/crypto/ip-hash';
import { openIpIntel } from '../../ipintel/ip-intel';
import { createClickWriter } from './click-writer';
import type { ClickWriterInit, ClickWriterReply, ClickWriterRequest } from './click-writer.protocol';
import { createIngestion } from '../enrich/ingest';

declare const self: Worker;

const reply = (message: ClickWriterReply) => self.postMessage(message);

function start(init: ClickWriterInit) {
  let writer;
  let db;
  let ipIntel;
  try {
    // Four connections on Postgres: a batch's statements run side by side, as they do in process.
    db = openThreadStore(init, 4, 'click writer');
    ipIntel = openIpIntel(init.ipIntelOptions);
    const ingestion = createIngestion({ ipHasher: createIpHasher(init.ipHashSecret) }, { ipIntel });
    writer = createClickWriter({ db, enrich: (click) => ingestion.enrich(click), setAsidePath: init.setAsidePath });
  } catch (error) {
    reply({ kind: 'failed', message: errorMessage(error) });
    return;
  }
  const connection = db;
  const writes = writer;
  self.onmessage = (event: MessageEvent<ClickWriterRequest>) => {
    const request = event.data;
    if (request.kind === 'close') {
      void connection.close().finally(() => reply({ kind: 'done', id: request.id }));
      return;
    }
    writes.write(request.lines, request.count, { sideBySide: request.sideBySide }).then(
      () => reply({ kind: 'done', id: request.id }),
      (error) => reply({ kind: 'error', id: request.id, message: errorMessage(error), code: errorCode(error) }),
    );
  };
  reply({ kind: 'ready' });
  collectWhenIdle();
  // Before the first batch is read: on a new DATA_DIR the ASN table is parsed here while the node
  // boots, not when its first click is written (click-writer.ts, prepare).
  try {
    ipIntel.load();
  } catch (error) {
    console.error('click writer thread: loading the IP data failed; each enrichment step reports it once', error);
  }
}

self.onmessage = (event: MessageEvent<ClickWriterInit>) => start(event.data);
