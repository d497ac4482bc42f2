/**
 * The scripted upstream the model contract suites run against: node:http on loopback, speaking the
 * OpenAI-compatible chat/embeddings wire format under `/v1` and the MonkeyOCR one at the root.
 * Each request plays the next queued reply (default `ok`) and is recorded with its headers and query.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ContractReply =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Never answers until the client goes away. */
  | { kind: 'hang' }
  /** Streams `tokens` content tokens `gapMs` apart, then finishes normally (`hang: true`: stays silent instead). */
  | { kind: 'drip'; tokens: number; gapMs: number; hang?: boolean }
  /** A 200 answer carrying `error`: in a stream as a `data:` payload or an `event: error`, else as a JSON body. */
  | { kind: 'in_band'; error: Record<string, unknown>; as?: 'data' | 'event' }
  /** A 200 body of `bytes` bytes (a stream: content chunks of that total). */
  | { kind: 'oversized'; bytes: number };

export interface ContractRequest {
  route: 'chat' | 'embeddings' | 'ocr/text' | 'parse' | 'health' | 'unknown';
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string>;
  body: string;
}

export const CONTRACT_CONTENT = 'hello from the contract upstream';
export const CONTRACT_TOKENS = ['hello ', 'from ', 'the ', 'contract ', 'upstream'];
export const CONTRACT_USAGE = { prompt_tokens: 7, completion_tokens: 5 };
/** The usage of an answer in the OpenAI spec's shape (which requires the total). */
const USAGE_BODY = { ...CONTRACT_USAGE, total_tokens: CONTRACT_USAGE.prompt_tokens + CONTRACT_USAGE.completion_tokens };
/** What every chat answer and chunk of the spec carries besides its choices. */
const COMPLETION_ID = { id: 'chatcmpl-contract', created: 1_700_000_000, model: 'contract-model' };
export const CONTRACT_OCR_TEXT = 'recognised by the contract upstream';
export const CONTRACT_EMBEDDING_DIM = 3;

export interface LoopbackUpstream {
  /** OpenAI-compatible base URL (`…/v1`). */
  readonly baseUrl: string;
  /** MonkeyOCR server root. */
  readonly rootUrl: string;
  readonly requests: ContractRequest[];
  /** Exchanges whose response has not closed yet. */
  readonly inflight: number;
  /** Queues replies for the next requests, in order. */
  next(...replies: ContractReply[]): void;
  /** Resolves when a request has arrived and is being answered. */
  arrived(count?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startLoopbackUpstream(): Promise<LoopbackUpstream> {
  const queue: ContractReply[] = [];
  const requests: ContractRequest[] = [];
  const open = new Set<ServerResponse>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    open.add(res);
    res.once('close', () => open.delete(res));
    void answer(req, res).catch(() => res.destroy());
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://loopback');
    const request: ContractRequest = {
      route: routeOf(url.pathname),
      headers: { ...req.headers },
      query: Object.fromEntries(url.searchParams),
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(request);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    await play(request, queue.shift() ?? { kind: 'ok' }, res);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${root}/v1`,
    rootUrl: root,
    requests,
    get inflight() {
      return open.size;
    },
    next: (...replies) => void queue.push(...replies),
    arrived: (count = requests.length + 1) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function routeOf(path: string): ContractRequest['route'] {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/embeddings')) return 'embeddings';
  if (path.endsWith('/ocr/text')) return 'ocr/text';
  if (path.endsWith('/parse')) return 'parse';
  if (path.endsWith('/health')) return 'health';
  return 'unknown';
}

function wantsStream(request: ContractRequest): boolean {
  if (request.route !== 'chat') return false;
  try {
    return (JSON.parse(request.body) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

async function play(request: ContractRequest, reply: ContractReply, res: ServerResponse): Promise<void> {
  const stream = wantsStream(request);
  switch (reply.kind) {
    case 'status':
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? JSON.stringify({ error: { message: `contract status ${reply.status}` } }));
      return;
    case 'hang':
      return untilClosed(res);
    case 'in_band': {
      const payload = JSON.stringify({ error: reply.error });
      if (!stream) return json(res, payload);
      sse(res);
      res.write(reply.as === 'event' ? `event: error\ndata: ${payload}\n\n` : `data: ${payload}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    case 'oversized':
      return oversized(res, reply.bytes, stream);
    case 'drip':
      return drip(res, reply, stream);
    case 'ok':
      return ok(request, res, stream);
  }
}

function ok(request: ContractRequest, res: ServerResponse, stream: boolean): void {
  switch (request.route) {
    case 'chat':
      if (!stream) return json(res, JSON.stringify(completion(CONTRACT_CONTENT)));
      sse(res);
      CONTRACT_TOKENS.forEach((token, i) => res.write(chunkEvent(token, i === CONTRACT_TOKENS.length - 1 ? 'stop' : null)));
      res.write(usageChunkEvent());
      res.end('data: [DONE]\n\n');
      return;
    case 'embeddings': {
      const input = (JSON.parse(request.body) as { input?: unknown }).input;
      const texts = Array.isArray(input) ? input : [input];
      const data = texts.map((_, index) => ({ object: 'embedding', index, embedding: Array.from({ length: CONTRACT_EMBEDDING_DIM }, (_v, i) => index + i / 10) }));
      const usage = { prompt_tokens: CONTRACT_USAGE.prompt_tokens, total_tokens: CONTRACT_USAGE.prompt_tokens };
      return json(res, JSON.stringify({ object: 'list', model: COMPLETION_ID.model, data, usage }));
    }
    case 'ocr/text':
      return json(res, JSON.stringify({ text: CONTRACT_OCR_TEXT }));
    case 'health':
      return json(res, '{"status":"ok"}');
    default:
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"route not found"}}');
  }
}

function completion(content: string): object {
  const choice = { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null };
  return { ...COMPLETION_ID, object: 'chat.completion', choices: [choice], usage: USAGE_BODY };
}

/** The last content chunk carries `finish_reason`, as OpenAI, vLLM and the common servers send it. */
function chunkEvent(content: string, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ ...COMPLETION_ID, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: finishReason }] })}\n\n`;
}

function usageChunkEvent(): string {
  return `data: ${JSON.stringify({ ...COMPLETION_ID, object: 'chat.completion.chunk', choices: [], usage: USAGE_BODY })}\n\n`;
}

function json(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

function untilClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => (res.closed ? resolve() : res.once('close', () => resolve())));
}

async function drip(res: ServerResponse, reply: Extract<ContractReply, { kind: 'drip' }>, stream: boolean): Promise<void> {
  const tokens = Array.from({ length: reply.tokens }, (_, i) => `t${i} `);
  if (!stream) {
    await pause(res, reply.gapMs * reply.tokens);
    if (reply.hang) return untilClosed(res);
    if (!res.closed) json(res, JSON.stringify(completion(tokens.join(''))));
    return;
  }
  sse(res);
  for (const [i, token] of tokens.entries()) {
    if (res.closed) return;
    res.write(chunkEvent(token, i === tokens.length - 1 && !reply.hang ? 'stop' : null));
    await pause(res, reply.gapMs);
  }
  if (reply.hang) return untilClosed(res);
  if (!res.closed) res.end(`${usageChunkEvent()}data: [DONE]\n\n`);
}

/** Waits `ms`, or less when the exchange closes first (no timer is left behind). */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

async function oversized(res: ServerResponse, bytes: number, stream: boolean): Promise<void> {
  const piece = 'x'.repeat(8 * 1024);
  if (stream) {
    sse(res);
    for (let sent = 0; sent < bytes && !res.closed; sent += piece.length) if (!res.write(chunkEvent(piece))) await drained(res);
    if (!res.closed) res.end('data: [DONE]\n\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"');
  for (let sent = 0; sent < bytes && !res.closed; sent += piece.length) if (!res.write(piece)) await drained(res);
  if (!res.closed) res.end('"},"finish_reason":"stop"}]}');
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
