import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleChat } from './chat.js';
import { handleEmbeddings } from './embeddings.js';
import { delay, sendJson, type Exchange } from './exchange.js';
import { parseForm, type ParsedForm } from './multipart.js';
import { handleModels } from './models.js';
import { handleHealth, handleOcrText, handleParse } from './ocr.js';
import { SourceState } from './source-state.js';
import type { Counters, MockScript, RecordedRequest, RouteName, SourceScript } from './types.js';
import { validateScript, validateSourceScript } from './validate.js';

export interface MockUpstreamOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  script?: MockScript;
  /** Seeds every source's failure RNG. Default 1. */
  seed?: number;
}

export interface MockUpstream {
  /** `http://host:port` */
  readonly url: string;
  readonly port: number;
  /** `{url}/{source}/v1`: an OpenAI-compatible base URL. */
  baseUrl(source: string): string;
  sourceNames(): string[];
  /** Replaces (or adds) one source's script; rewinds its step queues. */
  setSource(source: string, script: SourceScript): void;
  counters(source: string): Counters;
  requests(source: string): RecordedRequest[];
  /** Counters, recordings and step queues of every source back to start. */
  reset(): void;
  /** Closes the server and every open socket, hanging requests included. Idempotent. */
  close(): Promise<void>;
}

const ROUTES = new Map<string, { method: string; route: RouteName }>([
  ['v1/chat/completions', { method: 'POST', route: 'chat' }],
  ['v1/embeddings', { method: 'POST', route: 'embeddings' }],
  ['v1/models', { method: 'GET', route: 'models' }],
  ['ocr/text', { method: 'POST', route: 'ocrText' }],
  ['parse', { method: 'POST', route: 'parse' }],
  ['health', { method: 'GET', route: 'health' }],
]);

const UNKNOWN_SOURCE = { error: { message: 'model not found', code: 'model_not_found' } };
const UNKNOWN_ROUTE = { error: { message: 'route not found', code: 'not_found' } };

export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const script = options.script ?? { sources: {} };
  validateScript(script);
  const seed = options.seed ?? 1;
  const sources = new Map<string, SourceState>();
  for (const [name, sourceScript] of Object.entries(script.sources)) sources.set(name, new SourceState(name, sourceScript, seed));

  const exchanges = new Set<AbortController>();
  const handlers = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    // A request the mock cannot even route (e.g. an unparsable target) just loses its socket.
    const handling = handleRequest(req, res, sources, exchanges).catch(() => void res.destroy());
    handlers.add(handling);
    void handling.finally(() => handlers.delete(handling));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  const stateOf = (name: string): SourceState => {
    const state = sources.get(name);
    if (!state) throw new RangeError(`unknown mock source '${name}'`);
    return state;
  };

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    baseUrl: (source) => `${url}/${source}/v1`,
    sourceNames: () => [...sources.keys()],
    setSource(name, sourceScript) {
      validateSourceScript(name, sourceScript);
      const state = sources.get(name);
      if (state) state.replaceScript(sourceScript);
      else sources.set(name, new SourceState(name, sourceScript, seed));
    },
    counters: (name) => ({ ...stateOf(name).counters }),
    requests: (name) => [...stateOf(name).recordings],
    reset() {
      for (const state of sources.values()) state.reset();
    },
    close() {
      closing ??= (async () => {
        for (const exchange of exchanges) exchange.abort(new Error('mock upstream closed'));
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await Promise.allSettled([...handlers]);
      })();
      return closing;
    },
  };
}

async function handleRequest(
  req: IncomingMessage,
  res: ServerResponse,
  sources: Map<string, SourceState>,
  exchanges: Set<AbortController>,
): Promise<void> {
  const [sourceSegment, ...rest] = new URL(req.url ?? '/', 'http://mock.local').pathname.split('/').filter(Boolean);
  // Source names are validated to URL-safe characters, so the raw segment is the name.
  const source = sourceSegment === undefined ? undefined : sources.get(sourceSegment);
  if (!source) return sendJson(res, 404, UNKNOWN_SOURCE);

  const match = ROUTES.get(rest.join('/'));
  const route = match && match.method === req.method ? match.route : undefined;
  source.arrive(route);
  const arrivedAt = Date.now();
  const controller = new AbortController();
  exchanges.add(controller);
  const closed = new Promise<void>((resolve) =>
    res.once('close', () => {
      source.depart();
      exchanges.delete(controller);
      controller.abort(new Error('exchange closed'));
      resolve();
    }),
  );

  try {
    const body = await readBody(req);
    const form = isForm(req) ? await parseForm(body, req.headers['content-type']) : undefined;
    const json = form ? undefined : parseJson(body);
    if (route) source.recordings.push(recordRequest(req, route, form, json, arrivedAt));
    if (!route) return sendJson(res, 404, UNKNOWN_ROUTE);
    const ex: Exchange = { res, signal: controller.signal, source };
    await delay(source.script.latencyMs ?? 0, ex.signal);
    await dispatch(ex, route, form, json);
  } catch (error) {
    if (controller.signal.aborted || res.headersSent) res.destroy();
    else sendJson(res, 500, { error: { message: `mock upstream failed: ${(error as Error).message}`, code: 'mock_internal' } });
  }
  // Settles only once the response is closed, so close() can wait for every exchange's bookkeeping.
  await closed;
}

function dispatch(ex: Exchange, route: RouteName, form: ParsedForm | undefined, json: unknown): Promise<void> | void {
  switch (route) {
    case 'chat':
      return handleChat(ex, json);
    case 'embeddings':
      return handleEmbeddings(ex, json);
    case 'ocrText':
      return handleOcrText(ex, form);
    case 'parse':
      return handleParse(ex, form);
    case 'health':
      return handleHealth(ex);
    case 'models':
      return handleModels(ex);
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function isForm(req: IncomingMessage): boolean {
  return /^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(req.headers['content-type'] ?? '');
}

function parseJson(body: Buffer): unknown {
  if (body.byteLength === 0) return undefined;
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function recordRequest(req: IncomingMessage, route: RouteName, form: ParsedForm | undefined, json: unknown, arrivedAt: number): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const query = Object.fromEntries(new URL(req.url ?? '/', 'http://mock.local').searchParams);
  const seen = { route, method: req.method ?? '', headers, query, clientPort: req.socket.remotePort, arrivedAt };
  if (!form) return { ...seen, body: json };
  const files = Object.fromEntries(
    Object.entries(form.files).map(([name, { fileName, type, size }]) => [name, { fileName, type, size }]),
  );
  return {
    ...seen,
    body: [...Object.keys(form.fields), ...Object.keys(form.files)],
    form: { fields: { ...form.fields }, files },
  };
}
