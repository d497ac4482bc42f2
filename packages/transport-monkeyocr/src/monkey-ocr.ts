/**
 * `monkeyOcr(options)`: a MonkeyOCR server as an OcrModel. Multipart upload to `{baseUrl}/ocr/text`
 * and `{baseUrl}/parse` (a ZIP of markdown + layout elements), `GET {baseUrl}/health`, over the one
 * attempt layer of `@pgw/http`. `baseUrl` is the server root (it may carry a path prefix).
 */
import {
  MODEL_SPECIFICATION_VERSION,
  PolyGatewayError,
  type AttemptContext,
  type ModelEndpoint,
  type Clock,
  type OcrLayoutPayload,
  type OcrModel,
  type OcrOptions,
} from '@pgw/core';
import {
  Endpoint,
  checkDispatcher,
  checkFunction,
  checkMaxResponseBytes,
  checkNonEmptyString,
  ModelDispatcher,
  sendAttempt,
  type EndpointOptions,
} from '@pgw/http';
import type { Dispatcher } from 'undici';
import { invalidResult } from './classify.js';
import { readLayoutArchive } from './layout-archive.js';
import { uploadForm } from './upload.js';

export interface MonkeyOcrOptions extends EndpointOptions {
  /** The model name telemetry rows and prices use. Default `monkeyocr`. */
  model?: string;
  /** Cap of a 2xx body (a layout archive); a larger one fails with a ResultInvalidError naming the limit. Default 64 MiB. */
  maxResponseBytes?: number;
  /** The undici dispatcher to send through; never closed by the model. Default: an own Agent. */
  dispatcher?: Dispatcher;
  /** Where a non-finite Retry-After warning goes. Default `console.warn`. */
  warn?: (message: string) => void;
  /** Wall clock for an HTTP-date Retry-After. Default `Date.now`. */
  now?: Clock;
}

/** An OCR model of one MonkeyOCR server. */
export interface MonkeyOcrModel extends OcrModel {
  /** Closes the dispatcher the model created itself (an injected one is left alone). Idempotent. */
  close(): Promise<void>;
}

export const MONKEYOCR_PROVIDER = 'monkeyocr';
const FACTORY = 'monkeyOcr';
type Route = 'ocr/text' | 'parse' | 'health';

/** Creates the model; every option is validated here (errors name `monkeyOcr(options.KEY)`). */
export function monkeyOcr(options: MonkeyOcrOptions): MonkeyOcrModel {
  return new MonkeyOcr(options);
}

class MonkeyOcr implements MonkeyOcrModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = MONKEYOCR_PROVIDER;
  readonly modelId: string;
  readonly endpoint: ModelEndpoint;
  private readonly http: Endpoint;
  private readonly maxResponseBytes: number;
  private readonly dispatcher: ModelDispatcher;
  private readonly warn: (message: string) => void;
  private readonly now: Clock;

  constructor(options: MonkeyOcrOptions) {
    const name = (key: string) => `${FACTORY}(options.${key})`;
    if (typeof options !== 'object' || options === null) throw new TypeError(`${FACTORY}(options) must be an object`);
    this.http = new Endpoint(options, FACTORY);
    this.endpoint = this.http.server;
    this.modelId = options.model === undefined ? MONKEYOCR_PROVIDER : checkNonEmptyString(options.model, name('model'));
    this.maxResponseBytes = checkMaxResponseBytes(options.maxResponseBytes, name('maxResponseBytes'));
    this.dispatcher = new ModelDispatcher(checkDispatcher(options.dispatcher, name('dispatcher')), `${FACTORY} model ${this.modelId}`);
    this.warn = checkFunction(options.warn, name('warn')) ?? ((message) => console.warn(message));
    this.now = checkFunction(options.now, name('now')) ?? Date.now;
  }

  async recognizeText(image: Uint8Array, options: OcrOptions, attempt: AttemptContext): Promise<{ text: string }> {
    const { sourceName } = attempt;
    return this.send('ocr/text', attempt, { image, options }, async (body, status) => {
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        throw invalidResult(sourceName, 'OCR text answer', ['body is not JSON'], status);
      }
      const text = (value as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') throw invalidResult(sourceName, 'OCR text answer', ["'text' is not a string"], status);
      return { text };
    });
  }

  parseLayout(image: Uint8Array, options: OcrOptions, attempt: AttemptContext): Promise<OcrLayoutPayload> {
    return this.send('parse', attempt, { image, options }, async (body) => readLayoutArchive(body, attempt.sourceName));
  }

  /** True when `/health` answers 2xx in time; false for any upstream failure. Only the caller's abort throws. */
  async checkHealth(options: { signal?: AbortSignal; timeoutMs: number }): Promise<boolean> {
    const attempt = { signal: options.signal ?? new AbortController().signal, sourceName: this.modelId, timeoutMs: options.timeoutMs };
    try {
      await this.send('health', attempt, undefined, async () => undefined);
      return true;
    } catch (error) {
      if (error instanceof PolyGatewayError) return false;
      throw error;
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async send<T>(
    route: Route,
    attempt: Pick<AttemptContext, 'signal' | 'sourceName' | 'timeoutMs'>,
    upload: { image: Uint8Array; options: OcrOptions } | undefined,
    read: (body: Buffer, status: number) => Promise<T>,
  ): Promise<T> {
    return sendAttempt(
      {
        dispatcher: this.dispatcher.get(),
        endpoint: this.http,
        route,
        method: upload === undefined ? 'GET' : 'POST',
        headers: { accept: route === 'parse' ? 'application/zip' : 'application/json' },
        ...(upload !== undefined && { body: uploadForm(upload.image, upload.options) }),
        attempt,
        maxResponseBytes: this.maxResponseBytes,
        warn: this.warn,
        now: this.now,
      },
      async (answer) => read(await answer.bytes(), answer.status),
    );
  }
}
