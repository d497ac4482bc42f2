/**
 * The env keys of docs/architecture.md#configuration and the settings field each one fills. This table is the single list the
 * loader reads, the error mapper names, and the unknown-key check compares against.
 */

export type SettingsKind = 'chat' | 'embed' | 'ocr';

/** A scope name is a key prefix: letters and digits, words joined by single underscores (never `__`). */
export const SCOPE_NAME = /^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$/;

/** How a raw env string becomes a settings value. `seconds` becomes milliseconds, `megabytes` bytes. */
export type ValueParse = 'int' | 'number' | 'seconds' | 'megabytes' | 'bool' | 'choice' | 'text' | 'json';

export interface ScopeKey {
  /** The part after `{SCOPE}__`. */
  readonly suffix: string;
  readonly field: readonly string[];
  readonly parse: ValueParse;
  readonly kinds: readonly SettingsKind[];
}

const ALL: readonly SettingsKind[] = ['chat', 'embed', 'ocr'];
const CHAT: readonly SettingsKind[] = ['chat'];
const EMBED: readonly SettingsKind[] = ['embed'];

const key = (suffix: string, field: string, parse: ValueParse, kinds = ALL): ScopeKey => ({
  suffix,
  field: field.split('.'),
  parse,
  kinds,
});

export const SCOPE_KEYS: readonly ScopeKey[] = [
  key('SELECTOR', 'selector', 'choice'),
  key('QUOTA_FULL', 'quotaFull', 'choice'),
  key('CIRCUIT_OPEN', 'circuitOpen', 'choice'),
  key('CALL_DEADLINE_S', 'callDeadlineMs', 'seconds'),
  key('MAX_ATTEMPTS', 'retry.maxAttempts', 'int'),
  key('RETRY__BACKOFF_BASE_S', 'retry.backoffBaseMs', 'seconds'),
  key('RETRY__BACKOFF_MAX_S', 'retry.backoffMaxMs', 'seconds'),
  key('BREAKER__COOLDOWN_S', 'breaker.cooldownMs', 'seconds'),
  key('BREAKER__FAILURE_THRESHOLD', 'breaker.failureThreshold', 'int'),
  key('BREAKER__FAILURE_RATE', 'breaker.failureRate', 'number'),
  key('BREAKER__WINDOW_S', 'breaker.windowMs', 'seconds'),
  key('BREAKER__MIN_SAMPLES', 'breaker.minSamples', 'int'),
  key('BREAKER__MAX_COOLDOWN_S', 'breaker.maxCooldownMs', 'seconds'),
  key('PROBE_TTL_S', 'breaker.probeTtlMs', 'seconds'),
  key('LEASE_TTL_S', 'leaseTtlMs', 'seconds'),
  key('BACKPRESSURE__STALL_WINDOW_S', 'stallWindowMs', 'seconds'),
  key('GLOBAL__RPM', 'global.rpm', 'int'),
  key('GLOBAL__TPM', 'global.tpm', 'int'),
  key('GLOBAL__MAX_CONCURRENCY', 'global.maxConcurrency', 'int'),
  key('CACHE__NAMESPACE', 'cache.namespace', 'text', CHAT),
  key('CACHE__ISOLATION', 'cache.isolation', 'choice', CHAT),
  key('CACHE__TTL_S', 'cache.ttlMs', 'seconds', CHAT),
  key('CACHE__SALT', 'cache.salt', 'text', CHAT),
  key('STRUCTURED__MAX_RETRIES', 'structured.maxRetries', 'int', CHAT),
  key('STRUCTURED__STRATEGY', 'structured.strategy', 'choice', CHAT),
  key('STRUCTURED__ESCALATION', 'structured.escalation', 'choice', CHAT),
  key('TELEMETRY__TEXT_CAP', 'telemetryTextCap', 'int'),
  key('MAX_REQUEST_MB', 'maxRequestMb', 'number'),
  key('PRICING_PATH', 'pricingPath', 'text'),
  key('BUDGET__USD', 'budget.usd', 'number'),
  key('BUDGET__PERIOD', 'budget.period', 'choice'),
  key('BUDGET__PER', 'budget.per', 'choice'),
  key('TENANT__RPM', 'tenant.rpm', 'int'),
  key('TENANT__TPM', 'tenant.tpm', 'int'),
  key('TENANT__MAX_CONCURRENCY', 'tenant.maxConcurrency', 'int'),
  key('TENANTS', 'tenants', 'json'),
  key('BATCH_SHARE', 'batchShare', 'number'),
  key('BATCH_SIZE', 'batchSize', 'int', EMBED),
  key('NORMALIZE', 'normalize', 'bool', EMBED),
  key('EXPECTED_DIM', 'expectedDim', 'int', EMBED),
];

/** `{SCOPE}__SOURCES=name1,name2`: source order, and optionally a restriction of the set. */
export const SOURCES_SUFFIX = 'SOURCES';

export interface SourceKey {
  /** The last segment of `{SCOPE}__SOURCE__{NAME}__{FIELD}`. */
  readonly field: string;
  readonly prop: string;
  readonly parse: ValueParse;
}

export const SOURCE_KEYS: readonly SourceKey[] = [
  { field: 'BASE_URL', prop: 'baseUrl', parse: 'text' },
  { field: 'API_KEY', prop: 'apiKey', parse: 'text' },
  { field: 'MODEL', prop: 'model', parse: 'text' },
  { field: 'PROVIDER', prop: 'provider', parse: 'text' },
  { field: 'RPM', prop: 'rpm', parse: 'int' },
  { field: 'TPM', prop: 'tpm', parse: 'int' },
  { field: 'MAX_CONCURRENCY', prop: 'maxConcurrency', parse: 'int' },
  { field: 'EST_TOKENS', prop: 'estTokens', parse: 'int' },
  { field: 'TIMEOUT_S', prop: 'timeoutMs', parse: 'seconds' },
  { field: 'WEIGHT', prop: 'weight', parse: 'number' },
  { field: 'EXTRA_BODY', prop: 'extraBody', parse: 'json' },
  { field: 'HEADERS', prop: 'headers', parse: 'json' },
  { field: 'QUERY', prop: 'query', parse: 'json' },
  { field: 'STREAM', prop: 'stream', parse: 'bool' },
  { field: 'STRICT_SCHEMA', prop: 'strictSchema', parse: 'bool' },
  { field: 'EFFORT_MAP', prop: 'effortMap', parse: 'text' },
  { field: 'API_KEY_HEADER', prop: 'apiKeyHeader', parse: 'text' },
  { field: 'MAX_RESPONSE_MB', prop: 'maxResponseBytes', parse: 'megabytes' },
  { field: 'CONTEXT_WINDOW', prop: 'contextWindow', parse: 'int' },
  { field: 'PRICING', prop: 'price', parse: 'json' },
];

/** Process-wide keys (no scope prefix) that choose the backends. */
export const ASSEMBLY_KEYS: readonly { key: string; field: readonly string[]; parse: ValueParse }[] = [
  { key: 'PGW_LIMITER_BACKEND', field: ['backends', 'limiter'], parse: 'choice' },
  { key: 'PGW_BREAKER_BACKEND', field: ['backends', 'breaker'], parse: 'choice' },
  { key: 'PGW_CACHE_BACKEND', field: ['backends', 'cache'], parse: 'choice' },
  { key: 'PGW_TELEMETRY_BACKEND', field: ['backends', 'telemetry'], parse: 'choice' },
  { key: 'PGW_REDIS_MODE', field: ['backends', 'redisMode'], parse: 'choice' },
  { key: 'REDIS_URL', field: ['backends', 'redisUrl'], parse: 'text' },
  { key: 'PGW_REDIS_SENTINEL_MASTER', field: ['backends', 'redisSentinelMaster'], parse: 'text' },
  { key: 'PGW_TELEMETRY_DSN', field: ['backends', 'telemetryDsn'], parse: 'text' },
  { key: 'PGW_SQLITE_PATH', field: ['backends', 'sqlitePath'], parse: 'text' },
  { key: 'PGW_OTEL', field: ['backends', 'otel'], parse: 'bool' },
];

/** Legacy spellings still read; the current key wins when both agree, and disagreement is an error. */
export const LEGACY_ALIASES: readonly { alias: (scope: string) => string; suffix: string }[] = [
  { alias: (scope) => `${scope}_CIRCUIT_BREAKER_COOLDOWN`, suffix: 'BREAKER__COOLDOWN_S' },
];

export const scopeKeysOf = (kind: SettingsKind): readonly ScopeKey[] => SCOPE_KEYS.filter((k) => k.kinds.includes(kind));

/** Values safe to repeat in an error message: no URL, DSN, key or body can hide in them. */
export const isEchoable = (parse: ValueParse): boolean => parse !== 'text' && parse !== 'json';

/**
 * The env key behind a settings field path, so direct construction names the same key the env path
 * would. `sourceName(i)` gives the upper-case NAME segment of source `i`.
 */
export function envKeyOfField(
  scope: string,
  path: readonly PropertyKey[],
  sourceName: (index: number) => string | undefined,
): string | undefined {
  const [head, index, prop] = path;
  if (head === 'sources') {
    if (path.length === 1) return `${scope}__SOURCE__<NAME>__BASE_URL`;
    if (typeof index !== 'number') return undefined;
    if (prop === 'name') return `${scope}__${SOURCES_SUFFIX}`;
    const name = sourceName(index);
    const field = SOURCE_KEYS.find((k) => k.prop === prop)?.field;
    return name !== undefined && field !== undefined ? `${scope}__SOURCE__${name}__${field}` : undefined;
  }
  const joined = path.join('.');
  const scoped = SCOPE_KEYS.find((k) => k.field.join('.') === joined);
  if (scoped) return `${scope}__${scoped.suffix}`;
  return ASSEMBLY_KEYS.find((k) => k.field.join('.') === joined)?.key;
}
