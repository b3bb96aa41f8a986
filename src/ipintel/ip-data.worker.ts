/**
 * Prepares the shipped IP data off the answering thread: parses the ASN CSV files into the
 * binary copy under the cache directory (asn-load.ts) and makes the mappable copies of city
 * files (mapped-file.ts). The thread that asks then only maps what this one wrote. Started by
 * ip-data.thread.ts.
 */
import { errorMessage } from '../shared/error-message';
import { loadAsnTable } from './asn/asn-load';
import { openCityDatabases } from './geo/city-db';
import type { IpDataReply, IpDataRequest } from './ip-data.protocol';

declare const self: Worker;

self.onmessage = (event: MessageEvent<IpDataRequest>) => {
  const { asnDir, cacheDir, cityDatabases } = event.data;
  let reply: IpDataReply;
  try {
    const table = loadAsnTable({ dir: asnDir, cacheDir });
    openCityDatabases(cityDatabases, { copyDir: cacheDir }).load();
    reply = { kind: 'done', asnRows: table.rows.v4 + table.rows.v6 };
  } catch (error) {
    reply = { kind: 'failed', message: errorMessage(error) };
  }
  self.postMessage(reply);
};
