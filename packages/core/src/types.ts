/** Public value types of SPEC §3 and the settings shape of §5. Durations are milliseconds. */

export const EFFORTS = ['none', 'low', 'medium', 'high', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

export type ThinkingObservation = 'observed' | 'absent' | 'unknown';
export type UsageSource = 'measured' | 'estimated' | 'unavailable';

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } };

export interface ChatMessage {
  role: ChatRole;
  content: string | ContentPart[];
  name?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
  usageSource: UsageSource;
}

export interface CallStats {
  logicalCallId: string;
  attempts: number;
  totalLatencyMs: number;
  sourcesTried: string[];
}

export interface LLMResponse {
  content: string;
  parsed?: unknown;
  reasoningContent?: string;
  source: string;
  model: string;
  cached: boolean;
  usage: Usage;
  thinkingObservation: ThinkingObservation;
  callStats: CallStats;
  costUsd?: number;
}

/** One streamed piece of an answer. */
export interface ChatDelta {
  content?: string;
  reasoningContent?: string;
}

/** How a structured answer is asked for (SPEC §8). */
export type StructuredStrategy = 'json_repair' | 'json_schema';

/** A request as it travels through the middleware onion to a chat transport. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Caller's overlay of sampling parameters (temperature, max_tokens, …). Managed keys already rejected. */
  sampling: Record<string, unknown>;
  reasoningEffort?: Effort;
  /** Native structured output (`response_format`) when the json_schema strategy is active. */
  responseFormat?: { type: 'json_schema'; name: string; schema: Record<string, unknown> };
  /** Ask the transport to stream (SSE) so the watchdog can observe liveness. */
  stream?: boolean;
}

export interface ChatResult {
  content: string;
  reasoningContent?: string;
  model: string;
  usage: Usage;
  thinkingObservation: ThinkingObservation;
  finishReason?: string;
  /** Time to first token when streamed. */
  ttftMs?: number;
}

export interface EmbedRequest {
  texts: string[];
}

export interface EmbedResult {
  vectors: number[][];
  model: string;
  usage: Usage;
}

export interface OcrOptions {
  /** Free-form options passed to the OCR server as form fields. */
  fields?: Record<string, string>;
  fileName?: string;
  mimeType?: string;
}

export interface OcrTextResult {
  text: string;
  source: string;
}

export interface LayoutElement {
  type: string;
  text?: string;
  bbox?: number[];
  page?: number;
  [key: string]: unknown;
}

export interface OcrLayoutResult {
  markdown: string;
  elements: LayoutElement[];
  source: string;
  /** Other files of the result archive (images…), by path. */
  files?: Record<string, Uint8Array>;
}

/** One upstream endpoint + model + credentials + its own limits. */
export interface SourceConfig {
  name: string;
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Thinking profile name (SPEC §10); default `openai`. */
  provider: string;
  /** Requests per minute; 0 = unlimited. */
  rpm: number;
  /** Tokens per minute; 0 = unlimited. */
  tpm: number;
  /** Concurrent requests; 0 = unlimited. */
  maxConcurrency: number;
  /** Admission estimate of tokens per call. */
  estTokens: number;
  /** Per-attempt timeout. */
  timeoutMs: number;
  weight: number;
  extraBody: Record<string, unknown>;
}

export type SelectorKind = 'health_aware' | 'round_robin' | 'weighted' | 'ordered';
export type QuotaFullPolicy = 'wait' | 'fail_fast';
export type CircuitOpenPolicy = 'fail_fast' | 'wait';

export interface RetryPolicy {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export interface BreakerPolicy {
  failureThreshold: number;
  /** 0..1; the failure-rate channel trips at or above it. */
  failureRate: number;
  windowMs: number;
  minSamples: number;
  cooldownMs: number;
  maxCooldownMs: number;
  /** Lease of the single half-open probe; must exceed the largest source timeout plus a grace. */
  probeTtlMs: number;
}

export interface GlobalLimits {
  rpm: number;
  tpm: number;
  maxConcurrency: number;
}

export interface CachePolicy {
  namespace: string;
  ttlMs: number;
  salt: string;
}

export interface StructuredPolicy {
  maxRetries: number;
  strategy: StructuredStrategy;
  escalation: StructuredStrategy;
}

export type LimiterBackendKind = 'memory' | 'redis';
export type CacheBackendKind = 'memory' | 'redis' | 'none';
export type TelemetryBackendKind = 'none' | 'sqlite' | 'postgres';

/** `cluster`: `redisUrl` is one seed node or a comma-separated list of them. */
export type RedisMode = 'standalone' | 'cluster';

export interface BackendSelection {
  limiter: LimiterBackendKind;
  breaker: LimiterBackendKind;
  cache: CacheBackendKind;
  telemetry: TelemetryBackendKind;
  redisMode: RedisMode;
  redisUrl?: string;
  telemetryDsn?: string;
  sqlitePath?: string;
}

/** The validated, immutable configuration of one scope. */
export interface GatewaySettings {
  scope: string;
  sources: readonly SourceConfig[];
  selector: SelectorKind;
  quotaFull: QuotaFullPolicy;
  circuitOpen: CircuitOpenPolicy;
  /** Undefined = no call deadline (the code path takes no timer). */
  callDeadlineMs?: number;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  leaseTtlMs: number;
  stallWindowMs: number;
  global: GlobalLimits;
  cache: CachePolicy;
  structured: StructuredPolicy;
  telemetryTextCap: number;
  pricingPath?: string;
  backends: BackendSelection;
}

export interface EmbeddingSettings extends GatewaySettings {
  batchSize: number;
  normalize: boolean;
  expectedDim?: number;
}

export type OcrSettings = GatewaySettings;

export type Operation = 'chat' | 'embed' | 'ocr_text' | 'ocr_layout';
