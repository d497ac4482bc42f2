/**
 * The settings rules that relate fields to each other (or to the provider registry and the
 * deadline helper of core). They run once every field has parsed, on both settings paths.
 */
import { ensureCallDeadline, getProvider } from '@pgw/core';

/** A half-open probe and a permit lease must outlive the slowest attempt by this much. */
export const LEASE_GRACE_MS = 30_000;

export interface Issue {
  path: PropertyKey[];
  message: string;
}

interface Checked {
  sources: readonly { name: string; provider: string; timeoutMs: number }[];
  callDeadlineMs?: unknown;
  retry: { backoffBaseMs: number; backoffMaxMs: number };
  breaker: { cooldownMs: number; maxCooldownMs: number; probeTtlMs?: number | undefined };
  leaseTtlMs?: number | undefined;
  backends: { limiter: string; breaker?: string | undefined; cache: string; telemetry: string; redisMode: string; redisUrl?: string; telemetryDsn?: string };
}

export function crossFieldIssues(value: Checked): Issue[] {
  return [...sourceIssues(value), ...policyIssues(value), ...leaseIssues(value), ...backendIssues(value)];
}

function sourceIssues({ sources }: Checked): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  sources.forEach((source, index) => {
    const name = source.name.toLowerCase();
    if (seen.has(name)) issues.push({ path: ['sources', index, 'name'], message: `source '${name}' is listed twice` });
    seen.add(name);
    const problem = rangeProblem(() => getProvider(source.provider));
    if (problem !== undefined) issues.push({ path: ['sources', index, 'provider'], message: problem });
  });
  return issues;
}

function policyIssues({ callDeadlineMs, retry, breaker }: Checked): Issue[] {
  const issues: Issue[] = [];
  if (callDeadlineMs !== undefined && rangeProblem(() => ensureCallDeadline(callDeadlineMs, 'callDeadlineMs')) !== undefined) {
    issues.push({ path: ['callDeadlineMs'], message: 'must be a finite duration > 0 and ≤ about 24.8 days (unset = no deadline)' });
  }
  if (retry.backoffMaxMs < retry.backoffBaseMs) issues.push({ path: ['retry', 'backoffMaxMs'], message: 'must be ≥ the backoff base' });
  if (breaker.maxCooldownMs < breaker.cooldownMs) {
    issues.push({ path: ['breaker', 'maxCooldownMs'], message: 'must be ≥ the breaker cooldown' });
  }
  return issues;
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
  const issues: Issue[] = [];
  const redisUser = (
    [
      ['limiter', b.limiter, 'PGW_LIMITER_BACKEND'],
      ['breaker', b.breaker ?? b.limiter, 'PGW_BREAKER_BACKEND'],
      ['cache', b.cache, 'PGW_CACHE_BACKEND'],
    ] as const
  ).find(([, kind]) => kind === 'redis');
  if (redisUser && b.redisUrl === undefined) {
    issues.push({ path: ['backends', 'redisUrl'], message: `required: the ${redisUser[0]} backend is redis (${redisUser[2]})` });
  }
  if (b.redisMode !== 'cluster' && b.redisUrl?.includes(',')) {
    issues.push({ path: ['backends', 'redisUrl'], message: 'a list of seed nodes needs PGW_REDIS_MODE=cluster' });
  }
  if (b.telemetry === 'postgres' && b.telemetryDsn === undefined) {
    issues.push({ path: ['backends', 'telemetryDsn'], message: 'required: the telemetry backend is postgres (PGW_TELEMETRY_BACKEND)' });
  }
  return issues;
}

/** The RangeError message a core validator throws, or undefined when it accepts. */
function rangeProblem(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
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
