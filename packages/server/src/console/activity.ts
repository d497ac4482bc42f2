/**
 * What this process saw of its calls, for the console: calls, failures and latency in 5-second
 * buckets over the last five minutes, the last failed calls, each source's attempts in flight here
 * and its recent error classes, and the tenants of recent calls. A GatewaySubscriber of every client
 * the server builds; everything is bounded (buckets, rows, samples, tenants) and nothing is kept of a
 * call but its ids, scope, source, tenant and error class — never a prompt, an answer or a key.
 */
import type { AttemptEndEvent, AttemptStartEvent, CallEndEvent, GatewaySubscriber } from '@pgw/client';
import { errorType } from '../operations/metrics.js';

export const BUCKET_MS = 5000;
const BUCKETS = 60;
const MAX_SAMPLES_PER_BUCKET = 2000;
const MAX_FAILURES = 50;
const MAX_SOURCE_ERRORS = 20;
const MAX_SEEN_TENANTS = 50;
/** A source's error class is "recent" for this long. */
const RECENT_ERRORS_MS = BUCKETS * BUCKET_MS;

export interface ConsolePoint {
  /** Start of the bucket (ms since epoch). */
  readonly at: number;
  readonly calls: number;
  readonly errors: number;
  /** Undefined when no call ended in the bucket. */
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
}

export interface FailedCall {
  readonly at: number;
  readonly scope: string;
  /** The last source tried; undefined when none was (refused before any attempt). */
  readonly source: string | undefined;
  readonly errorClass: string;
  readonly callId: string;
}

export interface SourceActivity {
  /** Attempts this process has in flight at the source. */
  readonly inflightHere: number;
  /** Error classes of the source's failed attempts here in the last minutes, with their counts. */
  readonly recentErrors: readonly { readonly errorClass: string; readonly count: number }[];
}

interface Bucket {
  index: number;
  calls: number;
  errors: number;
  latencies: number[];
}

export class ConsoleActivity {
  readonly #buckets: Bucket[] = [];
  readonly #failures: FailedCall[] = [];
  readonly #inflight = new Map<string, number>();
  readonly #sourceErrors = new Map<string, { at: number; errorClass: string }[]>();
  /** Most recent last (a Map keeps insertion order). */
  readonly #tenants = new Map<string, true>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  readonly subscriber: GatewaySubscriber = {
    onAttemptStart: (event: AttemptStartEvent) => this.#move(event.call.scope, event.source, 1),
    onAttemptEnd: (event: AttemptEndEvent) => {
      this.#move(event.call.scope, event.source, -1);
      if (event.status !== 'error') return;
      const errors = this.#sourceErrors.get(sourceKey(event.call.scope, event.source)) ?? [];
      errors.push({ at: this.#now(), errorClass: errorType(event.error) });
      if (errors.length > MAX_SOURCE_ERRORS) errors.shift();
      this.#sourceErrors.set(sourceKey(event.call.scope, event.source), errors);
    },
    onCallEnd: (event: CallEndEvent) => this.#callEnded(event),
  };

  /** The buckets of the last five minutes, oldest first, empty ones included (a chart's time axis is even). */
  series(): ConsolePoint[] {
    const last = Math.floor(this.#now() / BUCKET_MS);
    const byIndex = new Map(this.#buckets.map((bucket) => [bucket.index, bucket]));
    return Array.from({ length: BUCKETS }, (_, offset) => {
      const index = last - BUCKETS + 1 + offset;
      const bucket = byIndex.get(index);
      const sorted = bucket === undefined ? [] : [...bucket.latencies].sort((a, b) => a - b);
      return { at: index * BUCKET_MS, calls: bucket?.calls ?? 0, errors: bucket?.errors ?? 0, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
    });
  }

  /** The last failed calls, newest first. */
  failures(): FailedCall[] {
    return [...this.#failures].reverse();
  }

  source(scope: string, source: string): SourceActivity {
    const since = this.#now() - RECENT_ERRORS_MS;
    const counts = new Map<string, number>();
    for (const { at, errorClass } of this.#sourceErrors.get(sourceKey(scope, source)) ?? []) {
      if (at >= since) counts.set(errorClass, (counts.get(errorClass) ?? 0) + 1);
    }
    return { inflightHere: this.#inflight.get(sourceKey(scope, source)) ?? 0, recentErrors: [...counts].map(([errorClass, count]) => ({ errorClass, count })) };
  }

  /** The tenants of recent calls, most recent first (`""` = calls without a tenant). */
  seenTenants(): string[] {
    return [...this.#tenants.keys()].reverse();
  }

  #move(scope: string, source: string, by: number): void {
    const key = sourceKey(scope, source);
    this.#inflight.set(key, Math.max(0, (this.#inflight.get(key) ?? 0) + by));
  }

  #callEnded(event: CallEndEvent): void {
    const { scope, logicalCallId, tenantId = '' } = event.call;
    this.#tenants.delete(tenantId);
    this.#tenants.set(tenantId, true);
    if (this.#tenants.size > MAX_SEEN_TENANTS) this.#tenants.delete(this.#tenants.keys().next().value!);
    const bucket = this.#bucketNow();
    bucket.calls += 1;
    if (bucket.latencies.length < MAX_SAMPLES_PER_BUCKET) bucket.latencies.push(event.totalLatencyMs);
    if (event.status !== 'error') return;
    bucket.errors += 1;
    this.#failures.push({ at: this.#now(), scope, source: event.sourcesTried.at(-1), errorClass: errorType(event.error), callId: logicalCallId });
    if (this.#failures.length > MAX_FAILURES) this.#failures.shift();
  }

  #bucketNow(): Bucket {
    const index = Math.floor(this.#now() / BUCKET_MS);
    const latest = this.#buckets.at(-1);
    if (latest?.index === index) return latest;
    const bucket = { index, calls: 0, errors: 0, latencies: [] };
    this.#buckets.push(bucket);
    while (this.#buckets.length > 0 && this.#buckets[0]!.index <= index - BUCKETS) this.#buckets.shift();
    return bucket;
  }
}

const sourceKey = (scope: string, source: string) => `${scope}\u0000${source}`;

/** Nearest-rank quantile of sorted samples. */
function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
