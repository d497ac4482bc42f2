/**
 * The one validation both settings paths run (docs/architecture.md#configuration): zod shapes with defaults, cross-field rules,
 * and the canonical normalised value. Durations are milliseconds here.
 */
import { BUDGET_PERIODS, DEFAULT_BATCH_SHARE, type AnyModel, type BudgetPolicy, type BackendSelection, type EmbeddingSettings, type GatewaySettings, type SourceConfig } from '@pgw/core';
import { checkEffortMap, isModel, MAX_BUDGET_USD, parseEffortMap, parseModelPrice } from '@pgw/core/internal';
import { z } from 'zod';
import { crossFieldIssues, leaseFloorMs } from './cross-field-rules.js';
import { SCOPE_NAME } from './env-keys.js';

export const DEFAULTS = {
  provider: 'openai',
  ocrModel: 'monkeyocr',
  estTokens: 1000,
  timeoutMs: 120_000,
  weight: 1,
  maxAttempts: 3,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  failureThreshold: 5,
  failureRate: 0.5,
  windowMs: 60_000,
  minSamples: 10,
  cooldownMs: 60_000,
  maxCooldownMs: 600_000,
  stallWindowMs: 300_000,
  cacheNamespace: 'default',
  cacheTtlMs: 86_400_000,
  structuredMaxRetries: 1,
  telemetryTextCap: 4096,
  maxRequestMb: 16,
  sqlitePath: '.pgw/telemetry.sqlite',
  batchSize: 64,
  apiKeyHeader: 'authorization',
  stream: true,
  maxResponseBytes: 64 * 1024 * 1024,
} as const;

const count = z.number().int({ error: 'must be an integer ≥ 0' }).min(0, { error: 'must be an integer ≥ 0' });
const atLeastOne = z.number().int({ error: 'must be an integer ≥ 1' }).min(1, { error: 'must be an integer ≥ 1' });
const positive = z.number().positive({ error: 'must be a finite number > 0' });
const nonNegative = z.number().min(0, { error: 'must be a finite number ≥ 0' });
const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(' | ')}` });
const nonEmpty = z.string().trim().min(1, { error: 'must not be empty' });

const urlWithScheme = (schemes: readonly string[]) =>
  nonEmpty.refine(
    (text) => {
      try {
        return schemes.includes(new URL(text).protocol);
      } catch {
        return false;
      }
    },
    { error: `must be a URL with scheme ${schemes.map((s) => s.replace(':', '://')).join(' or ')}` },
  );

const urlList = (schemes: readonly string[]) =>
  nonEmpty.refine((text) => text.split(',').every((url) => urlWithScheme(schemes).safeParse(url.trim()).success), {
    error: `must be a URL with scheme ${schemes.map((s) => s.replace(':', '://')).join(' or ')}`,
  });

const jsonObject = z.custom<Record<string, unknown>>(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    try {
      return typeof JSON.stringify(value) === 'string';
    } catch {
      return false;
    }
  },
  { error: 'must be a JSON object' },
);

const STRING_RECORD = 'must be a JSON object of string values';
const stringRecord = z.record(z.string(), z.string({ error: STRING_RECORD }), { error: STRING_RECORD });

/** A source's own price (USD per 1M tokens), validated as a pricing table entry is. */
const sourcePrice = z.unknown().transform((value, ctx) => {
  try {
    return parseModelPrice(value, 'price');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const budgetUsd = z
  .number({ error: `must be a number of USD > 0 and ≤ ${MAX_BUDGET_USD}` })
  .positive({ error: `must be a number of USD > 0 and ≤ ${MAX_BUDGET_USD}` })
  .max(MAX_BUDGET_USD, { error: `must be a number of USD > 0 and ≤ ${MAX_BUDGET_USD}` });

/** One tenant's own bound, weight and budget (`{SCOPE}__TENANTS`); its budget needs `budget.per: 'tenant'`. */
const tenantOverride = z.strictObject(
  {
    rpm: count.optional(),
    tpm: count.optional(),
    maxConcurrency: count.optional(),
    weight: positive.optional(),
    budgetUsd: budgetUsd.optional(),
  },
  { error: 'must be an object of rpm, tpm, maxConcurrency, weight, budgetUsd' },
);

/** A scope's spend budget; per-tenant amounts (`tenants`, or each tenant's `budgetUsd`) need `per: 'tenant'`. */
const budget = z
  .strictObject({
    usd: budgetUsd,
    period: choice(BUDGET_PERIODS).default('day'),
    per: choice(['scope', 'tenant']).default('scope'),
    tenants: z.record(nonEmpty, budgetUsd).optional(),
  })
  .refine((value) => value.tenants === undefined || value.per === 'tenant', {
    error: "tenants needs per = 'tenant'",
    path: ['per'],
  });

/** `from:to,…` from the env, or an object `{ from: to }` given directly. */
const effortMap = z.unknown().transform((value, ctx) => {
  try {
    return typeof value === 'string' ? parseEffortMap(value, 'effort map') : checkEffortMap(value, 'effort map');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const modelInstance = z.custom<AnyModel>((value) => isModel(value), { error: 'must be a model name or a model made by a provider factory' });

const sourceShape = {
  name: nonEmpty.regex(/^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*$/, {
    error: 'must be letters and digits, words joined by a single _ or -',
  }),
  /** A model name (the endpoint fields describe how to reach it), or a model instance. */
  model: z.union([nonEmpty, modelInstance], { error: 'must be a model name or a model made by a provider factory' }),
  /** Normalised form of an instance source: `model` is then its id. */
  instance: modelInstance.optional(),
  baseUrl: urlWithScheme(['http:', 'https:']).optional(),
  // Header legality (names, values, reserved names) is a cross-field rule: it depends on apiKeyHeader.
  apiKey: z.string().min(1, { error: 'must not be empty' }).optional(),
  apiKeyHeader: nonEmpty.optional(),
  headers: stringRecord.optional(),
  query: stringRecord.optional(),
  stream: z.boolean({ error: 'must be true or false' }).optional(),
  maxResponseBytes: atLeastOne.optional(),
  provider: nonEmpty.optional(),
  rpm: count.default(0),
  tpm: count.default(0),
  maxConcurrency: count.default(0),
  estTokens: count.default(DEFAULTS.estTokens),
  timeoutMs: positive.default(DEFAULTS.timeoutMs),
  weight: positive.default(DEFAULTS.weight),
  contextWindow: atLeastOne.optional(),
  price: sourcePrice.optional(),
  extraBody: jsonObject.optional(),
  strictSchema: z.boolean({ error: 'must be true or false' }).optional(),
  effortMap: effortMap.optional(),
};
const chatSource = z.strictObject(sourceShape);
/** MonkeyOCR takes no model name; telemetry still wants one. */
const ocrSource = z.strictObject({ ...sourceShape, model: sourceShape.model.default(DEFAULTS.ocrModel) });

/** The process-wide backend keys (ASSEMBLY_KEYS), also read alone by `openRecordStore`. */
export const backendsFields = z.strictObject({
  limiter: choice(['memory', 'redis']).default('memory'),
  breaker: choice(['memory', 'redis']).optional(),
  cache: choice(['memory', 'redis', 'none']).default('memory'),
  telemetry: choice(['none', 'sqlite', 'postgres']).default('none'),
  redisMode: choice(['standalone', 'cluster', 'sentinel']).default('standalone'),
  // One URL; in cluster mode a comma-separated list of seed nodes, in sentinel mode of sentinels (cross-field rules).
  redisUrl: urlList(['redis:', 'rediss:']).optional(),
  redisSentinelMaster: nonEmpty.optional(),
  telemetryDsn: urlWithScheme(['postgres:', 'postgresql:']).optional(),
  sqlitePath: nonEmpty.optional(),
  otel: z.boolean().optional(),
});

const settingsShape = <S extends typeof chatSource | typeof ocrSource>(source: S) => ({
  scope: nonEmpty.regex(SCOPE_NAME, { error: 'must be letters and digits, words joined by single underscores' }),
  sources: z
    .array(source)
    .min(1, { error: 'no source configured: set at least BASE_URL (and MODEL) of one source' })
    .readonly(),
  selector: choice(['health_aware', 'round_robin', 'weighted', 'ordered']).default('health_aware'),
  quotaFull: choice(['wait', 'fail_fast']).default('wait'),
  circuitOpen: choice(['fail_fast', 'wait']).default('fail_fast'),
  // Judged by ensureCallDeadline alone (a cross-field rule), so every path gets its verdict.
  callDeadlineMs: z.custom<number>().optional(),
  retry: z
    .strictObject({
      maxAttempts: atLeastOne.default(DEFAULTS.maxAttempts),
      backoffBaseMs: nonNegative.default(DEFAULTS.backoffBaseMs),
      backoffMaxMs: nonNegative.default(DEFAULTS.backoffMaxMs),
    })
    .prefault({}),
  breaker: z
    .strictObject({
      failureThreshold: atLeastOne.default(DEFAULTS.failureThreshold),
      failureRate: z
        .number()
        .gt(0, { error: 'must be a rate in (0, 1]' })
        .max(1, { error: 'must be a rate in (0, 1]' })
        .default(DEFAULTS.failureRate),
      windowMs: positive.default(DEFAULTS.windowMs),
      minSamples: atLeastOne.default(DEFAULTS.minSamples),
      cooldownMs: positive.default(DEFAULTS.cooldownMs),
      maxCooldownMs: positive.default(DEFAULTS.maxCooldownMs),
      probeTtlMs: positive.optional(),
    })
    .prefault({}),
  leaseTtlMs: positive.optional(),
  stallWindowMs: positive.default(DEFAULTS.stallWindowMs),
  global: z.strictObject({ rpm: count.default(0), tpm: count.default(0), maxConcurrency: count.default(0) }).prefault({}),
  cache: z
    .strictObject({
      // Part of a Redis hash tag (`pgw:cache:{namespace}:`): a brace would end the tag early.
      namespace: nonEmpty.regex(/^[^{}]*$/, { error: "must not contain '{' or '}'" }).default(DEFAULTS.cacheNamespace),
      isolation: choice(['tenant', 'namespace']).default('tenant'),
      ttlMs: positive.default(DEFAULTS.cacheTtlMs),
      salt: z.string().default(''),
    })
    .prefault({}),
  structured: z
    .strictObject({
      maxRetries: count.default(DEFAULTS.structuredMaxRetries),
      strategy: choice(['json_repair', 'json_schema']).default('json_repair'),
      escalation: choice(['json_repair', 'json_schema']).default('json_schema'),
    })
    .prefault({}),
  telemetryTextCap: count.default(DEFAULTS.telemetryTextCap),
  maxRequestMb: positive.default(DEFAULTS.maxRequestMb),
  pricingPath: nonEmpty.optional(),
  budget: budget.optional(),
  tenant: z.strictObject({ rpm: count.default(0), tpm: count.default(0), maxConcurrency: count.default(0) }).prefault({}),
  tenants: z.record(z.string(), tenantOverride, { error: 'must be a JSON object of tenant ids to objects' }).default({}),
  batchShare: z.number().gt(0, { error: 'must be a share in (0, 1]' }).max(1, { error: 'must be a share in (0, 1]' }).default(DEFAULT_BATCH_SHARE),
  backends: backendsFields.prefault({}),
});

const embedShape = {
  batchSize: atLeastOne.default(DEFAULTS.batchSize),
  normalize: z.boolean().default(false),
  expectedDim: atLeastOne.optional(),
};

type Parsed = z.output<z.ZodObject<ReturnType<typeof settingsShape<typeof chatSource>>>>;

function normaliseSource(source: Parsed['sources'][number]): SourceConfig {
  const limits = {
    rpm: source.rpm,
    tpm: source.tpm,
    maxConcurrency: source.maxConcurrency,
    estTokens: source.estTokens,
    timeoutMs: source.timeoutMs,
    weight: source.weight,
    ...(source.contextWindow === undefined ? {} : { contextWindow: source.contextWindow }),
    ...(source.price === undefined ? {} : { price: source.price }),
  };
  const instance = typeof source.model === 'string' ? source.instance : source.model;
  if (instance !== undefined) return { name: source.name.toLowerCase(), model: instance.modelId, instance, ...limits };
  // The cross-field rules require baseUrl for a source given by name.
  return {
    name: source.name.toLowerCase(),
    model: source.model as string,
    baseUrl: source.baseUrl!.replace(/\/+$/, ''),
    ...(source.apiKey === undefined ? {} : { apiKey: source.apiKey }),
    apiKeyHeader: (source.apiKeyHeader ?? DEFAULTS.apiKeyHeader).toLowerCase(),
    headers: { ...source.headers },
    query: { ...source.query },
    stream: source.stream ?? DEFAULTS.stream,
    maxResponseBytes: source.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    provider: (source.provider ?? DEFAULTS.provider).toLowerCase(),
    ...limits,
    extraBody: JSON.parse(JSON.stringify(source.extraBody ?? {})) as Record<string, unknown>,
    ...(source.strictSchema === undefined ? {} : { strictSchema: source.strictSchema }),
    ...(source.effortMap === undefined ? {} : { effortMap: source.effortMap }),
  };
}

function normaliseBackends(b: Parsed['backends']): BackendSelection {
  return {
    limiter: b.limiter,
    breaker: b.breaker ?? b.limiter,
    cache: b.cache,
    telemetry: b.telemetry,
    redisMode: b.redisMode,
    ...(b.redisUrl === undefined ? {} : { redisUrl: b.redisUrl }),
    ...(b.redisSentinelMaster === undefined ? {} : { redisSentinelMaster: b.redisSentinelMaster }),
    ...(b.telemetryDsn === undefined ? {} : { telemetryDsn: b.telemetryDsn }),
    ...(b.telemetry === 'sqlite' || b.sqlitePath !== undefined ? { sqlitePath: b.sqlitePath ?? DEFAULTS.sqlitePath } : {}),
    ...(b.otel === true && { otel: true }),
  };
}

/** The budget's per-tenant amounts: its own `tenants`, then each tenant's `budgetUsd` (the cross-field rules refuse a clash). */
function normaliseBudget(budget: NonNullable<Parsed['budget']>, tenants: Parsed['tenants']): BudgetPolicy {
  const fromTenants = Object.entries(tenants).flatMap(([id, own]) => (own.budgetUsd === undefined ? [] : [[id, own.budgetUsd] as const]));
  const amounts = { ...budget.tenants, ...Object.fromEntries(fromTenants) };
  return {
    usd: budget.usd,
    period: budget.period,
    per: budget.per,
    ...(Object.keys(amounts).length > 0 && { tenants: amounts }),
  };
}

/** The canonical value, built field by field so both paths yield the same keys in the same order. */
function normalise(value: Parsed): GatewaySettings {
  const floor = leaseFloorMs(value.sources).ms;
  return {
    scope: value.scope.toUpperCase(),
    sources: value.sources.map(normaliseSource),
    selector: value.selector,
    quotaFull: value.quotaFull,
    circuitOpen: value.circuitOpen,
    ...(value.callDeadlineMs === undefined ? {} : { callDeadlineMs: value.callDeadlineMs as number }),
    retry: { ...value.retry },
    breaker: {
      failureThreshold: value.breaker.failureThreshold,
      failureRate: value.breaker.failureRate,
      windowMs: value.breaker.windowMs,
      minSamples: value.breaker.minSamples,
      cooldownMs: value.breaker.cooldownMs,
      maxCooldownMs: value.breaker.maxCooldownMs,
      probeTtlMs: value.breaker.probeTtlMs ?? floor,
    },
    leaseTtlMs: value.leaseTtlMs ?? floor,
    stallWindowMs: value.stallWindowMs,
    global: { ...value.global },
    cache: { ...value.cache },
    structured: { ...value.structured },
    telemetryTextCap: value.telemetryTextCap,
    maxRequestMb: value.maxRequestMb,
    ...(value.pricingPath === undefined ? {} : { pricingPath: value.pricingPath }),
    ...(value.budget && { budget: normaliseBudget(value.budget, value.tenants) }),
    tenant: { ...value.tenant },
    tenants: Object.fromEntries(Object.entries(value.tenants).map(([id, own]) => [id, { ...own }])),
    batchShare: value.batchShare,
    backends: normaliseBackends(value.backends),
  };
}

function withCrossFieldRules<T extends z.ZodType<Parsed>>(schema: T) {
  return schema.superRefine((value, ctx) => {
    for (const issue of crossFieldIssues(value)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });
}

export const gatewaySchema = withCrossFieldRules(z.strictObject(settingsShape(chatSource))).transform(normalise);

/** OCR has no tokens to price: a spend budget there could not be kept, so it is refused, not ignored. */
const noBudget = budget.optional().refine((value) => value === undefined, {
  error: 'OCR has no tokens to price: a spend budget does not apply to an OCR scope',
  path: ['usd'],
});

export const ocrSchema = withCrossFieldRules(z.strictObject({ ...settingsShape(ocrSource), budget: noBudget })).transform(normalise);

export const embeddingSchema = withCrossFieldRules(z.strictObject({ ...settingsShape(chatSource), ...embedShape })).transform(
    (value): EmbeddingSettings => ({
      ...normalise(value),
      batchSize: value.batchSize,
      normalize: value.normalize,
      ...(value.expectedDim === undefined ? {} : { expectedDim: value.expectedDim }),
    }),
  );

export type GatewaySettingsInput = z.input<typeof gatewaySchema>;
export type OcrSettingsInput = z.input<typeof ocrSchema>;
export type EmbeddingSettingsInput = z.input<typeof embeddingSchema>;
