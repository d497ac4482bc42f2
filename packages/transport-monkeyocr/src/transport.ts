import { Pool } from 'undici';
import {
  PolyGatewayError,
  type AttemptContext,
  type HttpFailureContext,
  type LayoutElement,
  type OcrOptions,
  type OcrTransport,
  type SourceConfig,
} from '@pgw/core';
import { invalidResult } from './classify.js';
import { sendAttempt, type AttemptResponse } from './http-attempt.js';
import { readLayoutArchive } from './layout-archive.js';
import { uploadForm } from './upload.js';

export interface MonkeyOcrTransportOptions {
  /** Socket bound per upstream origin. Default 8. */
  connectionsPerOrigin?: number;
  /** How long an idle keep-alive socket is kept. Default 4000 ms. */
  keepAliveTimeoutMs?: number;
  /** Where a non-finite Retry-After warning goes. Default `console.warn`. */
  warn?: (message: string) => void;
}

type Route = 'ocr/text' | 'parse' | 'health';

/**
 * MonkeyOCR over HTTP (docs/architecture.md#transports): multipart upload to `{baseUrl}/ocr/text` and `{baseUrl}/parse`
 * (a ZIP of markdown + layout elements), and `GET {baseUrl}/health`. `baseUrl` is the server root
 * (it may carry a path prefix). One keep-alive undici Pool per origin.
 */
export class MonkeyOcrTransport implements OcrTransport {
  private readonly pools = new Map<string, Pool>();
  private readonly connections: number;
  private readonly keepAliveTimeoutMs: number;
  private readonly warn: (message: string) => void;
  private closed = false;

  constructor(options: MonkeyOcrTransportOptions = {}) {
    this.connections = positiveInteger(options.connectionsPerOrigin ?? 8, 'connectionsPerOrigin');
    this.keepAliveTimeoutMs = positiveInteger(options.keepAliveTimeoutMs ?? 4000, 'keepAliveTimeoutMs');
    this.warn = options.warn ?? ((message) => console.warn(message));
  }

  async recognizeText(source: SourceConfig, image: Uint8Array, options: OcrOptions, ctx: AttemptContext): Promise<{ text: string }> {
    const res = await this.send(source, 'POST', 'ocr/text', ctx.signal, image, options);
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(res.body).toString('utf8'));
    } catch {
      throw invalidResult(source.name, 'OCR text answer', ['body is not JSON'], res.statusCode);
    }
    const text = (value as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw invalidResult(source.name, 'OCR text answer', ["'text' is not a string"], res.statusCode);
    return { text };
  }

  async parseLayout(
    source: SourceConfig,
    image: Uint8Array,
    options: OcrOptions,
    ctx: AttemptContext,
  ): Promise<{ markdown: string; elements: LayoutElement[]; files: Record<string, Uint8Array> }> {
    const res = await this.send(source, 'POST', 'parse', ctx.signal, image, options);
    return readLayoutArchive(res.body, source.name);
  }

  /** True when `/health` answers 2xx in time; false for any upstream failure. Only the caller's abort throws. */
  async checkHealth(source: SourceConfig, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.send(source, 'GET', 'health', signal);
      return true;
    } catch (error) {
      if (error instanceof PolyGatewayError) return false;
      throw error;
    }
  }

  /** Closes every pool; requests still in flight finish first (each is bounded by its source's timeout). */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private send(
    source: SourceConfig,
    method: 'GET' | 'POST',
    route: Route,
    signal: AbortSignal | undefined,
    image?: Uint8Array,
    options?: OcrOptions,
  ): Promise<AttemptResponse> {
    if (this.closed) throw new Error('MonkeyOcrTransport is closed');
    if (!(Number.isFinite(source.timeoutMs) && source.timeoutMs > 0)) {
      throw new RangeError(`source ${source.name}: timeoutMs must be a positive number of milliseconds, got ${source.timeoutMs}`);
    }
    const { origin, path } = endpoint(source, route);
    const failure: HttpFailureContext = { sourceName: source.name, apiKey: source.apiKey, route, warn: this.warn };
    const headers: Record<string, string> = { accept: route === 'parse' ? 'application/zip' : 'application/json' };
    if (source.apiKey) headers['authorization'] = `Bearer ${source.apiKey}`;
    return sendAttempt({
      pool: this.poolFor(origin),
      path,
      method,
      headers,
      body: image === undefined ? undefined : uploadForm(image, options ?? {}),
      timeoutMs: source.timeoutMs,
      callerSignal: signal,
      failure,
    });
  }

  private poolFor(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      // Our per-attempt timer bounds every exchange, so undici's own header/body timers stay off.
      pool = new Pool(origin, {
        connections: this.connections,
        keepAliveTimeout: this.keepAliveTimeoutMs,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

function endpoint(source: SourceConfig, route: Route): { origin: string; path: string } {
  let url: URL;
  try {
    url = new URL(source.baseUrl);
  } catch {
    // The URL itself is not echoed: it may carry credentials.
    throw new RangeError(`source ${source.name}: baseUrl is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`source ${source.name}: baseUrl must be http(s), got ${url.protocol}`);
  }
  return { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}/${route}` };
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`MonkeyOcrTransport(${name}) must be a positive integer, got ${value}`);
  return value;
}
