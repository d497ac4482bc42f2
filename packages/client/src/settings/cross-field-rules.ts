/**
 * The settings rules that relate fields to each other (or to the built-in provider profiles and
 * the deadline helper of core). They run once every field has parsed, on both settings paths.
 */
import type { ModelIdentity } from '@pgw/core';
import { ensureCallDeadline, providerProfile } from '@pgw/core/internal';
import { checkApiKey, checkApiKeyHeader, checkHeaders, checkQuery, DEFAULT_API_KEY_HEADER } from '@pgw/http';
import { ENDPOINT_FIELDS } from './endpoint-fields.js';

/** A half-open probe and a permit lease must outlive the slowest attempt by this much. */
export const LEASE_GRACE_MS = 30_000;

export interface Issue {
  path: PropertyKey[];
  message: string;
}

interface CheckedSource {
  name: string;
  model: string | ModelIdentity;
  instance?: ModelIdentity | undefined;
  baseUrl?: string | undefined;
  provider?: string | undefined;
  apiKey?: string | undefined;
  apiKeyHeader?: string | undefined;
  headers?: Record<string, string> | undefined;
  query?: Record<string, string> | undefined;
  timeoutMs: number;
}

interface Checked {
  sources: readonly CheckedSource[];
  callDeadlineMs?: unknown;
  retry: { backoffBaseMs: number; backoffMaxMs: number };
  breaker: { cooldownMs: number; maxCooldownMs: number; probeTtlMs?: number | undefined };
  leaseTtlMs?: number | undefined;
  budget?: { per: string; tenants?: Record<string, number> | undefined } | undefined;
  tenants: Record<string, { budgetUsd?: number | undefined }>;
  backends: {
    limiter: string;
    breaker?: string | undefined;
    cache: string;
    telemetry: string;
    redisMode: string;
    redisUrl?: string;
    redisSentinelMaster?: string;
    telemetryDsn?: string;
  };
}

export function crossFieldIssues(value: Checked): Issue[] {
  return [...sourceIssues(value), ...policyIssues(value), ...leaseIssues(value), ...tenantIssues(value), ...backendIssues(value)];
}

function sourceIssues({ sources }: Checked): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  sources.forEach((source, index) => {
    const name = source.name.toLowerCase();
    if (seen.has(name)) issues.push({ path: ['sources', index, 'name'], message: `source '${name}' is listed twice` });
    seen.add(name);
    issues.push(...modelIssues(source, index));
  });
  return issues;
}

/**
 * A source either names a model and describes its endpoint (BASE_URL…), or is given a model
 * instance and describes nothing: endpoint fields next to an instance would be silently ignored.
 */
function modelIssues(source: CheckedSource, index: number): Issue[] {
  const at = (field: string, message: string): Issue => ({ path: ['sources', index, field], message });
  const instance = typeof source.model === 'string' ? source.instance : source.model;
  if (typeof source.model !== 'string' && source.instance !== undefined) {
    return [at('instance', 'give the model instance as `model` only')];
  }
  if (instance !== undefined) {
    if (typeof source.model === 'string' && source.model !== instance.modelId) {
      return [at('model', `must be the instance's modelId '${instance.modelId}'`)];
    }
    const stray = ENDPOINT_FIELDS.find((field) => (source as unknown as Record<string, unknown>)[field] !== undefined);
    return stray === undefined ? [] : [at(stray, 'describes an endpoint, but the source was given a model instance (its factory takes it)')];
  }
  if (source.baseUrl === undefined) return [at('baseUrl', 'required: the source names a model without giving a model instance')];
  return endpointIssues(source).map(([field, problem]) => at(field, problem));
}

/**
 * The same checks the provider factories run, so a bad value is a SettingsError naming its key
 * before anything is built. Their messages never quote a key or header value.
 */
function endpointIssues(source: CheckedSource): Array<[string, string]> {
  const apiKeyHeader = source.apiKeyHeader ?? DEFAULT_API_KEY_HEADER;
  const checks: Array<[string, unknown, () => unknown]> = [
    ['provider', source.provider, () => providerProfile(source.provider!, '')],
    ['apiKeyHeader', source.apiKeyHeader, () => checkApiKeyHeader(apiKeyHeader, '')],
    ['apiKey', source.apiKey, () => checkApiKey(source.apiKey, '')],
    ['headers', source.headers, () => checkHeaders(source.headers, '', apiKeyHeader)],
    ['query', source.query, () => checkQuery(source.query, '')],
  ];
  return checks.flatMap(([field, value, check]): Array<[string, string]> => {
    if (value === undefined) return [];
    const problem = argumentProblem(check);
    return problem === undefined ? [] : [[field, problem.replace(/^[\s:]+/, '')]];
  });
}

function policyIssues({ callDeadlineMs, retry, breaker }: Checked): Issue[] {
  const issues: Issue[] = [];
  if (callDeadlineMs !== undefined && argumentProblem(() => ensureCallDeadline(callDeadlineMs, 'callDeadlineMs')) !== undefined) {
    issues.push({ path: ['callDeadlineMs'], message: 'must be a finite duration > 0 and ≤ about 24.8 days (unset = no deadline)' });
  }
  if (retry.backoffMaxMs < retry.backoffBaseMs) issues.push({ path: ['retry', 'backoffMaxMs'], message: 'must be ≥ the backoff base' });
  if (breaker.maxCooldownMs < breaker.cooldownMs) {
    issues.push({ path: ['breaker', 'maxCooldownMs'], message: 'must be ≥ the breaker cooldown' });
  }
  return issues;
}

/** A tenant's `budgetUsd` is an amount of the scope's per-tenant budget: it needs one, and one amount per tenant (normalised settings carry it in both places). */
function tenantIssues({ budget, tenants }: Checked): Issue[] {
  return Object.entries(tenants).flatMap(([id, own]): Issue[] => {
    if (own.budgetUsd === undefined) return [];
    const at = (message: string): Issue => ({ path: ['tenants', id, 'budgetUsd'], message });
    if (budget?.per !== 'tenant') return [at("needs the scope's spend budget per tenant (BUDGET__USD and BUDGET__PER=tenant)")];
    if (budget.tenants !== undefined && Object.hasOwn(budget.tenants, id) && budget.tenants[id] !== own.budgetUsd) {
      return [at(`differs from budget.tenants.${id}: give the amount once`)];
    }
    return [];
  });
}

function leaseIssues({ sources, breaker, leaseTtlMs }: Checked): Issue[] {
  const floor = leaseFloorMs(sources);
  const message =
    `must be ≥ the largest source timeout (${seconds(floor.timeoutMs)}, source '${floor.source}') ` +
    `+ ${seconds(LEASE_GRACE_MS)} grace = ${seconds(floor.ms)}`;
  const tooShort = (ms: number | undefined) => ms !== undefined && ms < floor.ms;
  return [
    ...(tooShort(breaker.probeTtlMs) ? [{ path: ['breaker', 'probeTtlMs'], message }] : []),
    ...(tooShort(leaseTtlMs) ? [{ path: ['leaseTtlMs'], message }] : []),
  ];
}

function backendIssues({ backends: b }: Checked): Issue[] {
  const redisUser = (
    [
      ['limiter', b.limiter, 'PGW_LIMITER_BACKEND'],
      ['breaker', b.breaker ?? b.limiter, 'PGW_BREAKER_BACKEND'],
      ['cache', b.cache, 'PGW_CACHE_BACKEND'],
    ] as const
  ).find(([, kind]) => kind === 'redis');
  const issues = redisIssues(b, redisUser && `the ${redisUser[0]} backend is redis (${redisUser[2]})`);
  if (b.telemetry === 'postgres' && b.telemetryDsn === undefined) {
    issues.push({ path: ['backends', 'telemetryDsn'], message: 'required: the telemetry backend is postgres (PGW_TELEMETRY_BACKEND)' });
  }
  return issues;
}

/** The Redis connection's rules; `neededFor` says why a Redis URL is needed (undefined: it is not). */
export function redisIssues(b: Pick<Checked['backends'], 'redisMode' | 'redisUrl' | 'redisSentinelMaster'>, neededFor: string | undefined): Issue[] {
  const issues: Issue[] = [];
  if (neededFor !== undefined && b.redisUrl === undefined) {
    issues.push({ path: ['backends', 'redisUrl'], message: `required: ${neededFor}` });
  }
  if (b.redisMode === 'standalone' && b.redisUrl?.includes(',')) {
    issues.push({ path: ['backends', 'redisUrl'], message: 'a list of URLs needs PGW_REDIS_MODE=cluster (seed nodes) or sentinel (sentinels)' });
  }
  if (b.redisMode === 'sentinel' && b.redisSentinelMaster === undefined) {
    issues.push({ path: ['backends', 'redisSentinelMaster'], message: 'required: PGW_REDIS_MODE=sentinel needs the master name the sentinels monitor' });
  }
  if (b.redisMode !== 'sentinel' && b.redisSentinelMaster !== undefined) {
    issues.push({ path: ['backends', 'redisSentinelMaster'], message: 'only read in PGW_REDIS_MODE=sentinel' });
  }
  return issues;
}

/** The RangeError or TypeError message a validator throws, or undefined when it accepts (anything else is a bug and propagates). */
function argumentProblem(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof RangeError) && !(error instanceof TypeError)) throw error;
    return error.message;
  }
}

/** The shortest legal probe/lease TTL: the slowest source's timeout plus the grace. */
export function leaseFloorMs(sources: readonly { name: string; timeoutMs: number }[]) {
  let slowest = sources[0] ?? { name: '-', timeoutMs: 0 };
  for (const source of sources) if (source.timeoutMs > slowest.timeoutMs) slowest = source;
  return { ms: slowest.timeoutMs + LEASE_GRACE_MS, timeoutMs: slowest.timeoutMs, source: slowest.name };
}

const seconds = (ms: number) => `${ms / 1000} s`;
