/**
 * The loopback capture server: takes any client's request on the four protocols' paths, keeps its
 * body as the client sent it, and answers from a script of answers (then text) so the client
 * completes its turn. Anything else is a 404, noted, so an unexpected call shows in the recorder's output.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { reply, type Answer, type Protocol } from './answers.js';

const ROUTES: Record<string, Protocol> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
  '/v1/embeddings': 'embeddings',
};

export interface Captured {
  protocol: Protocol;
  /** The path without its query (Claude Code and the Anthropic SDK's beta calls add `?beta=true`). */
  path: string;
  body: Record<string, unknown>;
}

export interface Capture {
  /** The server's root, `http://127.0.0.1:PORT`. */
  url: string;
  /** Starts a scenario: its answers in order, then `fallback` to every further request. */
  script(answers: readonly Answer[], fallback?: Answer): void;
  /** The requests since the last `take`, and the paths answered 404. */
  take(): { requests: Captured[]; unknown: string[] };
  close(): Promise<void>;
}

const DEFAULT_TEXT: Answer = { text: 'ok' };
const inflate: Record<string, (buffer: Buffer) => Promise<Buffer>> = { gzip: promisify(zlib.gunzip), deflate: promisify(zlib.inflate), br: promisify(zlib.brotliDecompress) };

export async function startCapture(): Promise<Capture> {
  let answers: Answer[] = [];
  let fallback = DEFAULT_TEXT;
  let requests: Captured[] = [];
  let unknown: string[] = [];
  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      unknown.push(`${request.method} ${request.url}: ${String(error)}`);
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0]!;
    const protocol = ROUTES[path];
    const raw = Buffer.concat(await request.toArray());
    if (request.method !== 'POST' || protocol === undefined) {
      unknown.push(`${request.method} ${request.url}`);
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'not_found_error' } }));
      return;
    }
    const encoding = request.headers['content-encoding'];
    const decode = encoding === undefined || encoding === 'identity' ? async (buffer: Buffer) => buffer : inflate[encoding];
    if (decode === undefined) throw new Error(`content-encoding ${encoding} is not supported`);
    const body = JSON.parse((await decode(raw)).toString('utf8')) as Record<string, unknown>;
    requests.push({ protocol, path, body });
    const answer = protocol === 'embeddings' ? DEFAULT_TEXT : (answers.shift() ?? fallback);
    const { status, contentType, body: text } = reply(protocol, body, answer);
    response.writeHead(status, { 'content-type': contentType, 'x-request-id': 'req_1', 'request-id': 'req_1' }).end(text);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script(next, last = DEFAULT_TEXT) {
      answers = [...next];
      fallback = last;
    },
    take() {
      const taken = { requests, unknown };
      requests = [];
      unknown = [];
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
