/** HTTP as an attacker writes it: raw request bytes on a loopback socket, the answer as the server sent it. */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after the answer. */
  closed: boolean;
}

export function parseAnswer(text: string, closed: boolean): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = split < 0 ? '' : text.slice(split + 4);
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body, closed };
}

/** The data of a chunked body, as far as whole chunks have arrived. */
function dechunk(body: string): string {
  let data = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) return data;
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0 || body.length < lineEnd + 2 + size) return data;
    data += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** Opens a connection to the server of `url`. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Sends `bytes` and reads one whole answer (`Content-Length`), or until the server closes the
 * connection; with `untilClose` it also waits for the close (`closed` says whether it came in time).
 */
export async function rawRequest(url: string, bytes: string | Buffer, { timeoutMs = 10_000, untilClose = false } = {}): Promise<RawAnswer> {
  const socket = await openSocket(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      if (untilClose && text !== '') resolve(parseAnswer(text, false));
      else reject(new Error(`no whole answer within ${timeoutMs} ms: ${JSON.stringify(text.slice(0, 200))}`));
    }, timeoutMs);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(text, closed));
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const answer = parseAnswer(text, false);
      const length = Number(answer.headers['content-length'] ?? NaN);
      const whole = Number.isFinite(length) ? Buffer.byteLength(answer.body, 'latin1') >= length : answer.headers['transfer-encoding'] === 'chunked' && text.endsWith('\r\n0\r\n\r\n');
      if (!untilClose && whole) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

/** A POST with a JSON body, request target written as is. */
export function post(target: string, body: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers }).map(([name, value]) => `${name}: ${value}`);
  return `POST ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
