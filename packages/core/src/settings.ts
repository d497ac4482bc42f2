/** The settings shape of one scope (docs/architecture.md#configuration): the validated, immutable value clients are built from. Durations are milliseconds. */
import type { BudgetPolicy } from './budget.js';
import type { TenantBounds, TenantOverride } from './tenants.js';
import type { AnyModel } from './models.js';
import type { ModelPrice } from './pricing.js';
import type { EffortMap } from './thinking.js';
import type { StructuredStrategy } from './types.js';

/**
 * One source as configured: its name, limits and weight, and either a model given directly
 * (`instance`, built by a provider factory or written by the user) or the endpoint fields a
 * provider factory builds the model from (`baseUrl` and the rest). Governance sees `Source`.
 */
export interface SourceConfig {
  name: string;
  /** The model name; for an `instance`, its `modelId`. */
  model: string;
  /** A model given directly; the endpoint fields are then absent. */
  instance?: AnyModel;
  /** Endpoint: the upstream's base URL (with its path prefix, e.g. `…/v1`). */
  baseUrl?: string;
  apiKey?: string;
  /** Header that carries `apiKey`: `authorization` sends `Bearer KEY`, any other name the raw key. */
  apiKeyHeader?: string;
  /** Headers added to every request (values are secrets: never logged, never in errors or rows). */
  headers?: Readonly<Record<string, string>>;
  /** Query parameters appended to every request URL. */
  query?: Readonly<Record<string, string>>;
  /** Whether chat asks this source for SSE. */
  stream?: boolean;
  /** A larger 2xx body fails the attempt with ResultInvalidError. */
  maxResponseBytes?: number;
  /** Thinking profile name (docs/architecture.md#thinking-profiles); default `openai`. */
  provider?: string;
  extraBody?: Record<string, unknown>;
  /** Whether a json_schema response format that meets the strict-mode rules is asked strict; absent = yes. */
  strictSchema?: boolean;
  /** Efforts this source sends instead of the ones asked for (`{ max: 'high' }`); absent = as asked. */
  effortMap?: EffortMap;
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
  /** Context window in tokens, as declared; absent = unknown. */
  contextWindow?: number;
  /** This source's own price, over the pricing table's. */
  price?: ModelPrice;
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

/**
 * Who may be served an entry: `tenant` (default) only calls of the same `tenantId` (calls without
 * one share their own partition); `namespace` every call of the namespace.
 */
export type CacheIsolation = 'tenant' | 'namespace';

export interface CachePolicy {
  namespace: string;
  isolation: CacheIsolation;
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

/**
 * `cluster`: `redisUrl` is one seed node or a comma-separated list of them. `sentinel`: `redisUrl`
 * lists the sentinels, which name the primary of `redisSentinelMaster`.
 */
export type RedisMode = 'standalone' | 'cluster' | 'sentinel';

export interface BackendSelection {
  limiter: LimiterBackendKind;
  breaker: LimiterBackendKind;
  cache: CacheBackendKind;
  telemetry: TelemetryBackendKind;
  redisMode: RedisMode;
  redisUrl?: string;
  /** The master name the sentinels monitor (`PGW_REDIS_SENTINEL_MASTER`); set exactly in sentinel mode. */
  redisSentinelMaster?: string;
  telemetryDsn?: string;
  sqlitePath?: string;
  /** `PGW_OTEL=on`: attach `@pgw/telemetry-otel`'s subscriber on the global tracer and meter providers. */
  otel?: boolean;
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
  /** Bound on one call's request (messages and sampling as JSON, texts, image) in MiB, checked before the call starts. */
  maxRequestMb: number;
  pricingPath?: string;
  /** The scope's spend budget (`{SCOPE}__BUDGET__*`); absent = none. */
  budget?: BudgetPolicy;
  /** The bound every tenant gets (`{SCOPE}__TENANT__RPM`, `__TPM`, `__MAX_CONCURRENCY`; 0 = unlimited). */
  tenant: TenantBounds;
  /** Per tenant id: its own bound, weight and budget (`{SCOPE}__TENANTS`). Budgets are also in `budget.tenants`. */
  tenants: Readonly<Record<string, TenantOverride>>;
  /** The part of the scope's limits and of each source's that batch calls together may hold (`{SCOPE}__BATCH_SHARE`, default 0.8). */
  batchShare: number;
  backends: BackendSelection;
}

export interface EmbeddingSettings extends GatewaySettings {
  batchSize: number;
  normalize: boolean;
  expectedDim?: number;
}

export type OcrSettings = GatewaySettings;

