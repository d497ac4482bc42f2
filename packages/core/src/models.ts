/**
 * The model port (specification `pgw-model-v1`): what the governed path calls to reach an upstream.
 * A source is `{ name, limits…, weight, model }`; governance wraps the model and never knows a wire
 * format. Provider factories (`openaiCompatible`, `monkeyOcr`) create models; a user-written model
 * that passes the model contract suite of `@pgw/testkit` works the same. See docs/writing-a-provider.md.
 */
import type { ModelPrice } from './pricing.js';
import type { ModelEndpoint } from './events.js';
import type {
  ChatDelta,
  ChatRequest,
  ChatResult,
  EmbedRequest,
  EmbedResult,
  OcrLayoutPayload,
  OcrOptions,
  Usage,
} from './types.js';

export const MODEL_SPECIFICATION_VERSION = 'pgw-model-v1';

/** What every model says about itself. */
export interface ModelIdentity {
  readonly specificationVersion: typeof MODEL_SPECIFICATION_VERSION;
  /** Who implements the model: `openai-compatible`, `monkeyocr`, or a user's own id. */
  readonly provider: string;
  /** The model name: prices, cache keys and telemetry rows use it. */
  readonly modelId: string;
  /** Where requests go, when the model has one address (`server.address` / `server.port` in traces). Optional. */
  readonly endpoint?: ModelEndpoint;
  /** Frees what the model holds (sockets of a dispatcher it created itself). Idempotent. */
  close?(): Promise<void>;
}

/**
 * What one attempt gives a model besides the request. The model must: stop and reject with an
 * abort error (`abortError(signal)` or the signal's reason) when `signal` aborts; bound the whole
 * exchange by `timeoutMs` (a TransientError of kind `timeout`); report measured usage through
 * `onUsage` before it returns; forward deltas through `onDelta` only while the attempt is live;
 * and throw only errors of the taxonomy (four categories) for upstream failures.
 */
export interface AttemptContext {
  signal: AbortSignal;
  /** The source the attempt runs on: errors name it in `sourceName`. */
  sourceName: string;
  /** Bound of the whole attempt, body included. */
  timeoutMs: number;
  callId: string;
  logicalCallId: string;
  /** Called as soon as usage is known (e.g. a streamed usage chunk), before the attempt returns. */
  onUsage?: (usage: Usage) => void;
}

/** An attempt whose content goes to the caller as it arrives (chatStream). */
export interface StreamAttemptContext extends AttemptContext {
  onDelta: (delta: ChatDelta) => void;
}

export interface ChatModelCapabilities {
  /** Native `response_format: json_schema`. Without it the structured ladder asks this source for JSON in the prompt. */
  readonly jsonSchema: boolean;
  /** Whether the model streams on the wire (SSE). Without it `stream` yields the whole answer as one delta. */
  readonly streaming: boolean;
}

export interface ChatModel extends ModelIdentity {
  readonly capabilities: ChatModelCapabilities;
  /** Request keys the model manages (reasoning switches): a caller's `sampling` may not set them. */
  readonly managedKeys: readonly string[];
  /** One answer. A streaming model may still stream on the wire to watch liveness and measure usage. */
  generate(request: ChatRequest, attempt: AttemptContext): Promise<ChatResult>;
  /** One answer, its deltas forwarded as they arrive. Optional: without it, `generate` and one delta. */
  stream?(request: ChatRequest, attempt: StreamAttemptContext): Promise<ChatResult>;
}

export interface EmbeddingModel extends ModelIdentity {
  embed(request: EmbedRequest, attempt: AttemptContext): Promise<EmbedResult>;
}

export interface OcrModel extends ModelIdentity {
  recognizeText(image: Uint8Array, options: OcrOptions, attempt: AttemptContext): Promise<{ text: string }>;
  parseLayout(image: Uint8Array, options: OcrOptions, attempt: AttemptContext): Promise<OcrLayoutPayload>;
  /** True when the server answers its health route in time; only the caller's abort throws. */
  checkHealth(options: { signal?: AbortSignal; timeoutMs: number }): Promise<boolean>;
}

export type AnyModel = ChatModel | EmbeddingModel | OcrModel;

/** One upstream as governance sees it: its name, its limits and weight, and the model that reaches it. */
export interface Source<M extends ModelIdentity = ModelIdentity> {
  readonly name: string;
  readonly model: M;
  /** Requests per minute; 0 = unlimited. */
  readonly rpm: number;
  /** Tokens per minute; 0 = unlimited. */
  readonly tpm: number;
  /** Concurrent requests; 0 = unlimited. */
  readonly maxConcurrency: number;
  /** Admission estimate of tokens per call. */
  readonly estTokens: number;
  /** Per-attempt bound handed to the model. */
  readonly timeoutMs: number;
  readonly weight: number;
  /** Context window in tokens, as declared; undefined = unknown. A too-long prompt may move on to a larger one. */
  readonly contextWindow?: number;
  /** This source's own price; it wins over the pricing table's price of its model. */
  readonly price?: ModelPrice;
}

/** Whether `value` claims to be a model of this specification. */
export function isModel(value: unknown): value is ModelIdentity {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { specificationVersion?: unknown }).specificationVersion === MODEL_SPECIFICATION_VERSION &&
    typeof (value as { modelId?: unknown }).modelId === 'string' &&
    typeof (value as { provider?: unknown }).provider === 'string'
  );
}

/** Throws a TypeError naming `origin` unless `value` is a model with the operations `operations`. */
export function assertModel<M extends ModelIdentity>(value: unknown, operations: readonly string[], origin: string): M {
  if (!isModel(value)) {
    throw new TypeError(`${origin} must be a model of specification '${MODEL_SPECIFICATION_VERSION}' (made by a provider factory)`);
  }
  const missing = operations.filter((op) => typeof (value as unknown as Record<string, unknown>)[op] !== 'function');
  if (missing.length > 0) throw new TypeError(`${origin} (${value.provider} ${value.modelId}) lacks ${missing.join(', ')}`);
  return value as M;
}
