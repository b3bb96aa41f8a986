import { errorMessage } from '../../shared/error-message';

/**
 * The server-sent event streams of GET /api/dashboard/realtime: one poll per organization
 * watched, however many tabs watch it, at most once a second; an event only when the counters
 * changed, a comment line as heartbeat in between (docs/dashboard.md, "Realtime").
 */
export interface RealtimeStreams {
  /** A stream for one client, ended when `signal` aborts (the client left) or at close(). */
  open(orgId: string, signal: AbortSignal): ReadableStream<Uint8Array>;
  /** Streams open now (for tests and stops). */
  size(): number;
  /** Ends every stream, so a stopping node's in-flight requests finish. New ones end at once. */
  close(): void;
}

export interface RealtimeStreamOptions {
  /** Between two polls of one organization. */
  pollMs?: number;
  /** Between heartbeats: under Bun's idle timeout (10 s), which would close a quiet stream. */
  heartbeatMs?: number;
}

const POLL_MS = 1_000;
const HEARTBEAT_MS = 5_000;

interface Client {
  controller: ReadableStreamDefaultController<Uint8Array>;
  end(): void;
}

interface Watched {
  clients: Set<Client>;
  last: string | null;
  timer: ReturnType<typeof setInterval>;
  polling: boolean;
}

const encoder = new TextEncoder();

export function createRealtimeStreams(snapshot: (orgId: string) => Promise<unknown>, options: RealtimeStreamOptions = {}): RealtimeStreams {
  const pollMs = options.pollMs ?? POLL_MS;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const watched = new Map<string, Watched>();
  let closed = false;
  let lastFailure: string | undefined;

  const send = (client: Client, text: string) => {
    try {
      client.controller.enqueue(encoder.encode(text));
    } catch {
      client.end();
    }
  };

  const poll = async (orgId: string, entry: Watched, only?: Client) => {
    if (!only) {
      if (entry.polling) return;
      entry.polling = true;
    }
    try {
      const data = JSON.stringify(await snapshot(orgId));
      lastFailure = undefined;
      if (only) {
        entry.last ??= data;
        return send(only, `event: realtime\ndata: ${data}\n\n`);
      }
      if (data === entry.last) return;
      entry.last = data;
      for (const client of entry.clients) send(client, `event: realtime\ndata: ${data}\n\n`);
    } catch (error) {
      // The stream stays open: the next poll may succeed (a database restarting, say).
      const message = errorMessage(error);
      if (message !== lastFailure) console.error('realtime stream: reading the counters failed:', message);
      lastFailure = message;
    } finally {
      if (!only) entry.polling = false;
    }
  };

  const heartbeat = setInterval(() => {
    for (const entry of watched.values()) for (const client of entry.clients) send(client, ': heartbeat\n\n');
  }, heartbeatMs);
  heartbeat.unref?.();

  return {
    open(orgId, signal) {
      let client: Client;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          let ended = false;
          client = {
            controller,
            end() {
              if (ended) return;
              ended = true;
              signal.removeEventListener('abort', onAbort);
              const entry = watched.get(orgId);
              entry?.clients.delete(client);
              if (entry && entry.clients.size === 0) {
                clearInterval(entry.timer);
                watched.delete(orgId);
              }
              try {
                controller.close();
              } catch {}
            },
          };
          const onAbort = () => client.end();
          if (closed || signal.aborted) return client.end();
          signal.addEventListener('abort', onAbort);
          let entry = watched.get(orgId);
          if (!entry) {
            const created: Watched = { clients: new Set(), last: null, polling: false, timer: setInterval(() => void poll(orgId, created), pollMs) };
            created.timer.unref?.();
            watched.set(orgId, (entry = created));
          }
          entry.clients.add(client);
          // The retry hint, then the counters at once rather than at the next poll.
          send(client, `retry: ${pollMs * 3}\n\n`);
          void poll(orgId, entry, client);
        },
        cancel() {
          client?.end();
        },
      });
    },
    size: () => [...watched.values()].reduce((sum, entry) => sum + entry.clients.size, 0),
    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const entry of [...watched.values()]) for (const client of [...entry.clients]) client.end();
    },
  };
}
