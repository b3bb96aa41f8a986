import { connect } from 'node:net';

/**
 * HTTP/1.1 over a bare socket, for what fetch cannot do: send a head without its body, a body
 * larger than memory should hold, or hang up halfway through one.
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The answer as it came, status line, headers and body. */
  raw: string;
}

export function parseAnswer(raw: string): RawAnswer {
  const head = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, Math.max(head, 0)).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: head < 0 ? '' : raw.slice(head + 4), raw };
}

/** Whether `raw` holds a whole answer of declared length. */
function complete(raw: string): boolean {
  const head = raw.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, head));
  return head >= 0 && length !== null && raw.length >= head + 4 + Number(length[1]);
}

/**
 * Sends `text` as is and resolves with the answer once it is whole, or with what came when the
 * server closed; rejects when nothing complete came within `timeoutMs`.
 */
export function exchange(port: number, text: string, timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no whole answer within ${timeoutMs} ms; got ${JSON.stringify(raw)}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(raw));
    };
    socket.on('data', (data) => {
      raw += data.toString('latin1');
      if (complete(raw)) done();
    });
    socket.on('close', done);
    socket.on('error', () => {});
  });
}

/**
 * A POST of `total` bytes, declared (`Content-Length`) or chunked, made from one reused buffer so
 * the sender holds none of it. It keeps sending after the answer, as a client that ignores it
 * would, until the body is sent or the server closes; `hangUpAfter` bytes cuts it off there.
 */
export function upload(port: number, path: string, total: number, options: { declared: boolean; hangUpAfter?: number }): Promise<RawAnswer> {
  const { declared, hangUpAfter = Infinity } = options;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const block = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let raw = '';
    let finished = false;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(stall);
      socket.destroy();
      resolve(parseAnswer(raw));
    };
    socket.on('data', (data) => {
      raw += data.toString('latin1');
      if (!complete(raw)) return;
      if (sent >= total) finish();
      // A server that answered and then reads no more would stall the upload for good.
      else stall ??= setTimeout(finish, 10_000);
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      const framing = declared ? `Content-Length: ${total}` : 'Transfer-Encoding: chunked';
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`);
      const pump = () => {
        while (!finished && sent < total) {
          // Let what was written reach the server, then drop the connection.
          if (sent >= hangUpAfter) return void setTimeout(finish, 200);
          const piece = block.subarray(0, Math.min(block.length, total - sent, hangUpAfter - sent));
          sent += piece.length;
          let more = declared || socket.write(`${piece.length.toString(16)}\r\n`);
          more = socket.write(piece) && more;
          if (!declared) more = socket.write('\r\n') && more;
          if (!more) return void socket.once('drain', pump);
        }
        if (!declared && !finished) socket.write('0\r\n\r\n');
        if (complete(raw)) finish();
      };
      pump();
    });
  });
}
