/**
 * Key layout. Every key of one scope carries the hash tag `{scope}` so a script touching several of
 * them runs on one Redis Cluster slot; see README "Key layout".
 */

/** `pgw:{scope}:` after checking the scope can be a hash tag. */
export function scopePrefix(scope: string): string {
  return `pgw:{${hashTag(scope, 'scope')}}:`;
}

/** `pgw:cache:{namespace}:` after checking the namespace can be a hash tag. */
export function cachePrefix(namespace: string): string {
  return `pgw:cache:{${hashTag(namespace, 'namespace')}}:`;
}

/** `pgw:record:<namespace>:`: no hash tag, so a Cluster spreads the records over its slots. */
export function recordPrefix(namespace: string): string {
  if (typeof namespace !== 'string' || namespace.length === 0) throw new RangeError(`namespace must be a non-empty string, got ${JSON.stringify(namespace)}`);
  return `pgw:record:${namespace}:`;
}

function hashTag(value: string, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || /[{}]/.test(value)) {
    throw new RangeError(`${name} must be a non-empty string without '{' or '}', got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The limiter's keys for one source: its window, reservations, token sum and leases, then the scope-wide ones. */
export function limiterKeys(prefix: string, source: string) {
  const own = `${prefix}lim:s:${source}:`;
  const all = `${prefix}lim:g:`;
  return {
    sourceWindow: `${own}win`,
    sourceTokens: `${own}tok`,
    sourceTpm: `${own}tpm`,
    sourceLeases: `${own}lease`,
    globalWindow: `${all}win`,
    globalTokens: `${all}tok`,
    globalTpm: `${all}tpm`,
    globalLeases: `${all}lease`,
  };
}
export type LimiterKeys = ReturnType<typeof limiterKeys>;

/**
 * A tenant's books (window, reservations, token sum, leases), then the batch class's: the two gate
 * triples an admission is booked under besides its source's and its scope's. Any tenant id is safe
 * here: every key ends in one of four fixed suffixes after the id.
 */
export function tenantKeys(prefix: string, tenantId: string) {
  const own = `${prefix}lim:t:${tenantId}:`;
  const batch = `${prefix}lim:b:`;
  return {
    tenantWindow: `${own}win`,
    tenantTokens: `${own}tok`,
    tenantTpm: `${own}tpm`,
    tenantLeases: `${own}lease`,
    batchWindow: `${batch}win`,
    batchTokens: `${batch}tok`,
    batchTpm: `${batch}tpm`,
    batchLeases: `${batch}lease`,
  };
}
export type TenantKeys = ReturnType<typeof tenantKeys>;

/**
 * The batch class's books on one source: the triple its share of the source's limits is kept in,
 * beside its share of the scope's (`lim:b:`).
 */
export function sourceBatchKeys(prefix: string, source: string) {
  const own = `${prefix}lim:b:s:${source}:`;
  return { sourceBatchWindow: `${own}win`, sourceBatchTokens: `${own}tok`, sourceBatchTpm: `${own}tpm`, sourceBatchLeases: `${own}lease` };
}
export type SourceBatchKeys = ReturnType<typeof sourceBatchKeys>;

/**
 * A stored key's books in the scope (window, reservations, token sum, leases): the triple its own
 * gates are kept in, under the scope's hash tag, so a key is bounded within each scope it calls
 * (docs/decisions.md#key-gates-per-scope-issue-49). Any key id is safe here, as any tenant id.
 */
export function keyKeys(prefix: string, keyId: string) {
  const own = `${prefix}lim:k:${keyId}:`;
  return { keyWindow: `${own}win`, keyTokens: `${own}tok`, keyTpm: `${own}tpm`, keyLeases: `${own}lease` };
}
export type KeyKeys = ReturnType<typeof keyKeys>;

/**
 * The base of a key's own spend budget in the scope (the scripts append `@<periodStart>`); the
 * window is part of it, so a record whose window changed never shares an account with the old one.
 */
export function keyBudgetKey(prefix: string, keyId: string, window: string): string {
  return `${prefix}kbud:${window}:${keyId}`;
}

/** The breaker's keys for one source: its state hash and its per-second sample buckets. */
export function breakerKeys(prefix: string, source: string) {
  const own = `${prefix}brk:${source}`;
  return { breakerState: own, breakerSamples: `${own}:samples` };
}
export type BreakerKeys = ReturnType<typeof breakerKeys>;

/** A scope's store epoch: a value a store that forgot the scope's books no longer has (see holdings.ts). */
export function storeEpochKey(prefix: string): string {
  return `${prefix}epoch`;
}

/**
 * A scope's fleet-wide line of waiting callers (interactive, then batch), their lapse times, the
 * classes' virtual times and tenants' last tags, and the channel room is announced on.
 */
export function lineKeys(prefix: string) {
  return { line: `${prefix}line`, lineBatch: `${prefix}line:b`, alive: `${prefix}line:alive`, lineTags: `${prefix}line:tags`, wake: `${prefix}wake` };
}

/**
 * The base of one spend budget's keys (the scripts append `@<periodStart>`): the scope's, or per
 * tenant the tenant's (`-` for calls without one). Any tenant id is safe after the scope's tag.
 */
export function budgetKey(prefix: string, tenant: string | undefined): string {
  return `${prefix}bud:${tenant === undefined ? '-' : `t:${tenant}`}`;
}
