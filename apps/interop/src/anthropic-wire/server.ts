/**
 * A loopback server speaking the Anthropic Messages wire format (`POST /v1/messages`, JSON and
 * SSE), written from Anthropic's published request, response, error and stream-event examples
 * because no npm package serves it on loopback (see the README). Kept apart from
 * `apps/mock-upstream`, which speaks OpenAI's format: this one answers as Anthropic does, and
 * each answer is scripted per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody, messageBody, streamEvents, type AnthropicAnswer } from './wire.js';

/** One scripted answer; unscripted requests get `{ kind: 'message' }` (a one-line text answer). */
export type AnthropicStep =
  | ({ kind: 'message' } & AnthropicAnswer)
  /** An HTTP error in Anthropic's shape: `{ type: 'error', error: { type, message } }`. */
  | { kind: 'error'; status: number; type: string; message?: string; headers?: Record<string, string> }
  /** A stream that sends `afterEvents` events of the answer, then `event: error` (e.g. `overloaded_error`). */
  | { kind: 'stream_error'; type: string; message?: string; afterEvents?: number }
  /** Headers, then silence until the client gives up. */
  | { kind: 'hang' };

export interface AnthropicRequest {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface AnthropicWireServer {
  /** The base URL an Anthropic client takes (`…/v1`). */
  readonly baseUrl: string;
  readonly requests: AnthropicRequest[];
  /** Queues answers for the next requests, in order. */
  script(...steps: AnthropicStep[]): void;
  /** Requests whose answer is still being written or awaited. */
  readonly inflight: number;
  close(): Promise<void>;
}

export async function startAnthropicWire(options: { interEventMs?: number } = {}): Promise<AnthropicWireServer> {
  const queue: AnthropicStep[] = [];
  const requests: AnthropicRequest[] = [];
  let inflight = 0;
  const server = createServer((req, res) => {
    inflight++;
    res.once('close', () => inflight--);
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      return reply(res, 404, errorBody('not_found_error', 'Not found'));
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    requests.push({ headers: req.headers, body });
    if (typeof req.headers['x-api-key'] !== 'string') return reply(res, 401, errorBody('authentication_error', 'x-api-key header is required'));
    const step = queue.shift() ?? { kind: 'message' };
    const model = String(body['model'] ?? 'claude');
    switch (step.kind) {
      case 'error':
        return reply(res, step.status, errorBody(step.type, step.message ?? step.type), step.headers);
      case 'hang':
        res.writeHead(200, { 'content-type': body['stream'] === true ? 'text/event-stream' : 'application/json' });
        res.flushHeaders();
        return;
      case 'message':
        if (body['stream'] !== true) return reply(res, 200, messageBody(model, step));
        return stream(res, streamEvents(model, step));
      case 'stream_error': {
        const events = streamEvents(model, {}).slice(0, step.afterEvents ?? 1);
        events.push(['error', errorBody(step.type, step.message ?? step.type)]);
        return stream(res, events);
      }
    }
  }

  async function stream(res: ServerResponse, events: Array<[string, object]>): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const [event, data] of events) {
      if (res.destroyed) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (options.interEventMs) await new Promise((resolve) => setTimeout(resolve, options.interEventMs));
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...steps) => void queue.push(...steps),
    get inflight() {
      return inflight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_loopback', ...headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
