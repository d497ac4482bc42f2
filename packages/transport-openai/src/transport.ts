/**
 * OpenAI-compatible chat and embeddings over undici: one keep-alive Pool per origin, a per-attempt
 * timeout, an SSE liveness watchdog, abort wired through, and SPEC §11's error translation.
 */
import { Pool, type Dispatcher } from 'undici';
import {
  PolyGatewayError,
  abortError,
  translateHttpFailure,
  translateNetworkFailure,
  type AttemptContext,
  type ChatRequest,
  type ChatResult,
  type ChatTransport,
  type Clock,
  type EmbedRequest,
  type EmbedResult,
  type EmbedTransport,
  type SourceConfig,
} from '@pgw/core';
import { AttemptScope } from './attempt-scope.js';
import { parseChatCompletion, toChatResult, type ChatAnswer } from './chat-answer.js';
import { ChatStreamAssembler } from './chat-stream.js';
import { parseEmbeddings } from './embed-answer.js';
import { truncatedStream, type AnswerOrigin } from './error-translation.js';
import { isEventStream, readCappedText } from './http-body.js';
import { chatBody, embedBody } from './request-body.js';
import { SseParser } from './sse-parser.js';
import type { StreamWatchdogLimits } from './stream-watchdog.js';
import { estimatedEmbedUsage } from './usage.js';

export interface StreamWatchdogOptions {
  /** Longest wait from sending the request to the first content or reasoning token. Default 60 000. */
  firstTokenMs?: number;
  /** Longest gap between two tokens. Default 30 000. */
  interTokenMs?: number;
  /** Caps a stream's total time below the source's `timeoutMs` (which always applies). Default: no cap. */
  totalMs?: number;
}

export interface OpenAICompatTransportOptions {
  /** Connections per origin. Default 64. */
  connections?: number;
  /** Where non-fatal oddities go (e.g. a non-finite Retry-After). Default `console.warn`. */
  warn?: (message: string) => void;
  /** Wall clock for HTTP-date Retry-After and `ttftMs`. Default `Date.now`. */
  now?: Clock;
  watchdog?: StreamWatchdogOptions;
  userAgent?: string;
}

export const DEFAULT_CONNECTIONS = 64;
export const DEFAULT_FIRST_TOKEN_MS = 60_000;
export const DEFAULT_INTER_TOKEN_MS = 30_000;
const DEFAULT_USER_AGENT = 'pgw-transport-openai/0.1';
/** An error body beyond this is not read: summaries keep 2048 characters anyway. */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
const CHAT_ROUTE = 'chat/completions';
const EMBED_ROUTE = 'embeddings';

type ResponseData = Dispatcher.ResponseData;

interface Exchange {
  source: SourceConfig;
  route: string;
  payload: Record<string, unknown>;
  ctx: AttemptContext;
  totalMs: number;
  liveness?: StreamWatchdogLimits;
}

interface RouteTarget {
  readonly origin: string;
  readonly path: string;
}

/** What a reader of a 2xx answer gets. */
interface Answering {
  response: ResponseData;
  scope: AttemptScope;
  origin: AnswerOrigin;
  dispatchedAt: number;
}

export class OpenAICompatTransport implements ChatTransport, EmbedTransport {
  private readonly pools = new Map<string, Pool>();
  /** Parsed request targets by route and base URL: parsing a URL per request is measurable at loopback speed. */
  private readonly targets = new Map<string, RouteTarget>();
  private readonly connections: number;
  private readonly warn: (message: string) => void;
  private readonly now: Clock;
  private readonly liveness: StreamWatchdogLimits;
  private readonly streamTotalMs: number;
  private readonly userAgent: string;
  private closed = false;

  constructor(options: OpenAICompatTransportOptions = {}) {
    this.connections = positive(options.connections, DEFAULT_CONNECTIONS, 'connections', true);
    this.warn = options.warn ?? ((message) => console.warn(message));
    this.now = options.now ?? Date.now;
    const watchdog = options.watchdog ?? {};
    this.liveness = {
      firstTokenMs: positive(watchdog.firstTokenMs, DEFAULT_FIRST_TOKEN_MS, 'watchdog.firstTokenMs'),
      interTokenMs: positive(watchdog.interTokenMs, DEFAULT_INTER_TOKEN_MS, 'watchdog.interTokenMs'),
    };
    this.streamTotalMs = positive(watchdog.totalMs, Number.POSITIVE_INFINITY, 'watchdog.totalMs');
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  }

  async chat(source: SourceConfig, request: ChatRequest, ctx: AttemptContext): Promise<ChatResult> {
    const stream = request.stream === true;
    const exchange: Exchange = {
      source,
      route: CHAT_ROUTE,
      payload: chatBody(source, request),
      ctx,
      totalMs: stream ? Math.min(source.timeoutMs, this.streamTotalMs) : source.timeoutMs,
      ...(stream && { liveness: this.liveness }),
    };
    return this.exchange(exchange, async (answering) => {
      const answer = isEventStream(answering.response.headers)
        ? await this.readStream(answering, ctx)
        : this.readChatJson(await answering.response.body.text(), answering.origin, ctx);
      return toChatResult(answer, source, request.messages);
    });
  }

  async embed(source: SourceConfig, request: EmbedRequest, ctx: AttemptContext): Promise<EmbedResult> {
    const exchange: Exchange = { source, route: EMBED_ROUTE, payload: embedBody(source, request), ctx, totalMs: source.timeoutMs };
    return this.exchange(exchange, async ({ response, origin }) => {
      const answer = parseEmbeddings(await response.body.text(), origin, request.texts.length);
      if (answer.usage !== undefined) ctx.onUsage?.(answer.usage);
      return { vectors: answer.vectors, model: source.model, usage: answer.usage ?? estimatedEmbedUsage(request.texts) };
    });
  }

  /** Closes every pool; requests still in flight finish first. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** Sends one request under an AttemptScope, translates non-2xx answers, hands a 2xx one to `read`. */
  private async exchange<T>(exchange: Exchange, read: (answering: Answering) => Promise<T>): Promise<T> {
    const { source, route, ctx } = exchange;
    if (this.closed) throw new Error('OpenAICompatTransport is closed');
    const target = this.routeTarget(source, route);
    const pool = this.pool(target.origin);
    const scope = new AttemptScope({
      callerSignal: ctx.signal,
      sourceName: source.name,
      route,
      totalMs: exchange.totalMs,
      ...(exchange.liveness && { liveness: exchange.liveness }),
    });
    const dispatchedAt = this.now();
    let response: ResponseData | undefined;
    try {
      response = await pool.request({
        method: 'POST',
        path: target.path,
        headers: this.headers(source, exchange.liveness !== undefined),
        body: JSON.stringify(exchange.payload),
        signal: scope.cancel.signal,
      });
      const status = response.statusCode;
      if (status < 200 || status >= 300) {
        const { text: body, cut } = await readCappedText(response.body, ERROR_BODY_LIMIT_BYTES);
        throw translateHttpFailure(
          { status, headers: response.headers, body, cut },
          { sourceName: source.name, apiKey: source.apiKey, route, warn: this.warn, now: this.now },
        );
      }
      const result = await read({ response, scope, origin: { source, route, status }, dispatchedAt });
      // Cancellation wins even over an answer that raced it.
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      return result;
    } catch (error) {
      const outcome = scope.outcome(error);
      if (outcome !== error || error instanceof PolyGatewayError) throw outcome;
      throw translateNetworkFailure(error, { sourceName: source.name, route }) ?? error;
    } finally {
      scope.dispose();
      // A body not read to its end would pin its socket: destroying it closes the connection.
      if (response !== undefined && !response.body.readableEnded) response.body.destroy();
    }
  }

  private readChatJson(body: string, origin: AnswerOrigin, ctx: AttemptContext): ChatAnswer {
    const answer = parseChatCompletion(body, origin);
    if (answer.usage !== undefined) ctx.onUsage?.(answer.usage);
    return answer;
  }

  private async readStream({ response, scope, origin, dispatchedAt }: Answering, ctx: AttemptContext): Promise<ChatAnswer> {
    const assembler = new ChatStreamAssembler(origin);
    let ttftMs: number | undefined;
    const parser = new SseParser(({ data }) => {
      const news = assembler.accept(data);
      if (news.usage !== undefined) ctx.onUsage?.(news.usage);
      if (news.delta !== undefined) {
        ttftMs ??= this.now() - dispatchedAt;
        scope.tokenSeen();
        ctx.onDelta?.(news.delta);
      }
      if (assembler.done) scope.stopLiveness();
    });
    const decoder = new TextDecoder();
    try {
      // Read to the end (not break at [DONE]) so the connection goes back to the pool.
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      // After [DONE] the answer is complete; a broken tail costs nothing.
      if (!assembler.done) throw error;
    }
    if (!assembler.done) {
      parser.feed(decoder.decode());
      parser.end();
    }
    if (!assembler.done) throw truncatedStream(origin);
    return assembler.answer(ttftMs);
  }

  private headers(source: SourceConfig, stream: boolean): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'user-agent': this.userAgent,
      ...(source.apiKey && { authorization: `Bearer ${source.apiKey}` }),
    };
  }

  private routeTarget(source: SourceConfig, route: string): RouteTarget {
    const key = `${route} ${source.baseUrl}`;
    let target = this.targets.get(key);
    if (target === undefined) {
      const url = routeUrl(source, route);
      target = { origin: url.origin, path: url.pathname + url.search };
      this.targets.set(key, target);
    }
    return target;
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, { connections: this.connections, pipelining: 1 });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

function routeUrl(source: SourceConfig, route: string): URL {
  try {
    return new URL(`${source.baseUrl.replace(/\/+$/, '')}/${route}`);
  } catch (cause) {
    throw new RangeError(`source '${source.name}': baseUrl is not a valid URL`, { cause });
  }
}

function positive(value: number | undefined, fallback: number, key: string, integer = false): number {
  if (value === undefined) return fallback;
  const valid = (integer ? Number.isInteger(value) : Number.isFinite(value)) && value > 0;
  if (!valid) {
    throw new RangeError(`OpenAICompatTransport options.${key} must be a positive ${integer ? 'integer' : 'finite number'}, got ${String(value)}`);
  }
  return value;
}
