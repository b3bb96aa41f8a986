import type { IpIntelOptions } from './ip-intel';
import type { IpDataReply, IpDataRequest } from './ip-data.protocol';

/**
 * Prepares the node's IP data in a thread of its own, while the main thread opens the store and
 * migrates: on a new DATA_DIR the ASN table's parse (over a second) runs there, and every thread
 * afterwards maps the copy it wrote in a few milliseconds. Resolves to the ASN table's row count;
 * rejects with the reason the data could not be prepared (the caller then loads it in place,
 * and a broken file fails there, as it always did).
 */
export function prepareIpData(options: IpIntelOptions & { cacheDir: string }): Promise<number> {
  const request: IpDataRequest = { asnDir: options.asnDir, cacheDir: options.cacheDir, cityDatabases: options.cityDatabases };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./ip-data.worker.ts', import.meta.url).href);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      worker.terminate();
      outcome();
    };
    worker.addEventListener('message', (event: MessageEvent<IpDataReply>) => {
      const reply = event.data;
      settle(() => (reply.kind === 'done' ? resolve(reply.asnRows) : reject(new Error(reply.message))));
    });
    worker.addEventListener('error', (event) => settle(() => reject(new Error(`IP data thread failed: ${event.message}`))));
    worker.addEventListener('close', () => settle(() => reject(new Error('IP data thread exited before it finished'))));
    worker.postMessage(request);
  });
}
