/**
 * `openaiCompatible(options)`: a model that speaks the OpenAI chat-completions and embeddings wire
 * format, over the one attempt layer of `@pgw/http` (attempt scope, capped bodies, liveness
 * limits, failure classification incl. in-band errors).
 */
import { StringDecoder } from 'node:string_decoder';
import {
  MODEL_SPECIFICATION_VERSION,
  wholeAnswerDelta,
  type AttemptContext,
  type ModelEndpoint,
  type ChatDelta,
  type ChatModel,
  type ChatModelCapabilities,
  type ChatRequest,
  type ChatResult,
  type EmbedRequest,
  type EmbedResult,
  type EmbeddingModel,
  type StreamAttemptContext,
} from '@pgw/core';
import { Endpoint, ModelDispatcher, SseParser, isEventStream, sendAttempt, type HttpAnswer, type HttpAttempt } from '@pgw/http';
import { parseChatCompletion, toChatResult, type ChatAnswer } from './chat-answer.js';
import { ChatStreamAssembler } from './chat-stream.js';
import { parseEmbeddings } from './embed-answer.js';
import { truncatedStream } from './error-translation.js';
import { FACTORY, resolveOptions, type OpenAICompatibleOptions, type ResolvedOptions } from './options.js';
import { chatBody, embedBody, type ChatWire } from './request-body.js';
import { StrictResponseFormat } from './strict-schema.js';
import { estimatedEmbedUsage } from './usage.js';

export const OPENAI_COMPATIBLE_PROVIDER = 'openai-compatible';
const CHAT_ROUTE = 'chat/completions';
const EMBED_ROUTE = 'embeddings';

/** A chat and embedding model of one OpenAI-compatible endpoint. */
export interface OpenAICompatibleModel extends ChatModel, EmbeddingModel {
  stream(request: ChatRequest, attempt: StreamAttemptContext): Promise<ChatResult>;
  /** Closes the dispatcher the model created itself (an injected one is left alone). Idempotent. */
  close(): Promise<void>;
}

/** Creates the model; every option is validated here (errors name `openaiCompatible(options.KEY)`). */
export function openaiCompatible(options: OpenAICompatibleOptions): OpenAICompatibleModel {
  return new OpenAICompatible(options);
}

class OpenAICompatible implements OpenAICompatibleModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = OPENAI_COMPATIBLE_PROVIDER;
  readonly modelId: string;
  readonly capabilities: ChatModelCapabilities;
  readonly managedKeys: readonly string[];
  private readonly options: ResolvedOptions;
  /** What every chat body is built from. */
  private readonly wire: ChatWire;
  readonly endpoint: ModelEndpoint;
  private readonly http: Endpoint;
  private readonly dispatcher: ModelDispatcher;
  /** Request headers per answer form, built once: they are the same for every attempt. */
  private readonly requestHeaders: { readonly json: Record<string, string>; readonly sse: Record<string, string> };

  constructor(options: OpenAICompatibleOptions) {
    this.options = resolveOptions(options);
    this.wire = { ...this.options, strict: new StrictResponseFormat(this.options.strictSchema, this.options.warn) };
    this.http = new Endpoint(options, FACTORY);
    this.endpoint = this.http.server;
    this.modelId = this.options.model;
    this.capabilities = Object.freeze({ jsonSchema: this.options.profile.supportsJsonSchema, streaming: this.options.stream });
    this.managedKeys = this.options.profile.managedKeys;
    this.dispatcher = new ModelDispatcher(this.options.dispatcher, `${FACTORY} model ${this.modelId}`);
    const headers = (accept: string) => Object.freeze({ 'content-type': 'application/json', accept, 'user-agent': this.options.userAgent });
    this.requestHeaders = { json: headers('application/json'), sse: headers('text/event-stream') };
  }

  generate(request: ChatRequest, attempt: AttemptContext): Promise<ChatResult> {
    return this.chat(request, attempt, undefined);
  }

  /** Not async (docs/decisions.md#lean-hot-path): every stream in flight would hold its frame. */
  stream(request: ChatRequest, attempt: StreamAttemptContext): Promise<ChatResult> {
    if (!this.options.stream) {
      return this.chat(request, attempt, undefined).then((result) => {
        const delta = wholeAnswerDelta(result);
        if (delta !== undefined && !attempt.signal.aborted) attempt.onDelta(delta);
        return result;
      });
    }
    // Deltas reach the caller only while the attempt is live: none after it settles (readStream drops those after a cancellation).
    let live = true;
    return this.chat(request, attempt, (delta) => {
      if (live) attempt.onDelta(delta);
    }).then(
      (result) => {
        live = false;
        return result;
      },
      (error: unknown) => {
        live = false;
        throw error;
      },
    );
  }

  async embed(request: EmbedRequest, attempt: AttemptContext): Promise<EmbedResult> {
    const payload = embedBody(this.options.model, this.options.extraBody, request);
    return sendAttempt(this.httpAttempt(EMBED_ROUTE, payload, attempt, false), async (answer) => {
      const parsed = parseEmbeddings(await answer.text(), answer, request.texts.length);
      if (parsed.usage !== undefined) attempt.onUsage?.(parsed.usage);
      return { vectors: parsed.vectors, model: this.modelId, usage: parsed.usage ?? estimatedEmbedUsage(request.texts) };
    });
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  /** Not async (docs/decisions.md#lean-hot-path); a bad body still rejects. */
  private chat(request: ChatRequest, attempt: AttemptContext, onDelta: ((delta: ChatDelta) => void) | undefined): Promise<ChatResult> {
    let http: HttpAttempt;
    try {
      http = this.httpAttempt(CHAT_ROUTE, chatBody(this.wire, request), attempt, this.options.stream);
    } catch (error) {
      return Promise.reject(error);
    }
    return sendAttempt(http, (answer) => {
      const parsed = isEventStream(answer.headers) ? this.readStream(answer, attempt, onDelta) : readChatJson(answer, attempt);
      return parsed.then((chat) => toChatResult(chat, this.modelId, request.messages));
    });
  }

  private httpAttempt(route: string, payload: Record<string, unknown>, attempt: AttemptContext, stream: boolean): HttpAttempt {
    const { options } = this;
    return {
      dispatcher: this.dispatcher.get(),
      endpoint: this.http,
      route,
      method: 'POST',
      headers: stream ? this.requestHeaders.sse : this.requestHeaders.json,
      body: JSON.stringify(payload),
      attempt,
      // Spelt out rather than spread: a spread's fields land outside the object, in a second allocation.
      liveness: stream ? options.liveness.limits : undefined,
      maxTotalMs: stream ? options.liveness.totalMs : undefined,
      maxResponseBytes: options.maxResponseBytes,
      warn: options.warn,
      now: options.now,
    };
  }

  private async readStream(answer: HttpAnswer, attempt: AttemptContext, onDelta: ((delta: ChatDelta) => void) | undefined): Promise<ChatAnswer> {
    const assembler = new ChatStreamAssembler(answer);
    let ttftMs: number | undefined;
    const parser = new SseParser((event) => {
      const news = assembler.accept(event);
      if (news.usage !== undefined) attempt.onUsage?.(news.usage);
      if (news.delta !== undefined) {
        ttftMs ??= this.options.now() - answer.dispatchedAt;
        answer.tokenSeen();
        // A field read, where an AbortSignal's `aborted` getter per token shows in profiles.
        if (!answer.cancelled) onDelta?.(news.delta);
      }
      if (assembler.done) answer.stopLiveness();
    });
    // Node's string decoder: a streaming TextDecoder takes ICU's slower path and holds a native converter per stream.
    const decoder = new StringDecoder('utf8');
    try {
      // Read to the end (not break at [DONE]) so the connection goes back to the pool.
      await answer.eachChunk((chunk) => parser.feed(decoder.write(chunk)));
    } catch (error) {
      // After [DONE] the answer is complete; a broken tail costs nothing.
      if (!assembler.done) throw error;
    }
    if (!assembler.done) {
      parser.feed(decoder.end());
      parser.end();
    }
    if (!assembler.done) throw truncatedStream(answer);
    return assembler.answer(ttftMs);
  }
}

function readChatJson(answer: HttpAnswer, attempt: AttemptContext): Promise<ChatAnswer> {
  return answer.text().then((body) => {
    const parsed = parseChatCompletion(body, answer);
    if (parsed.usage !== undefined) attempt.onUsage?.(parsed.usage);
    return parsed;
  });
}
