/**
 * Who may call the admin API: an admin key (`PGW_SERVER__ADMIN_KEYS`) only — a tenant's key, static or
 * stored, is refused with 403, anything else with 401 — and at most a token bucket's worth per admin
 * key (refused callers share one bucket, so guessing admin keys is as slow as the bucket). The actor
 * an audit row names is the admin key's fingerprint: 12 hex characters of its SHA-256, never the key.
 */
import { createHash } from 'node:crypto';
import type { MaybePromise } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';
import type { OperatorKeys } from '../door/admin-keys.js';
import { presentedKey } from '../door/api-keys.js';
import { UnauthorizedError } from '../door/request-error.js';

/** A burst of this many calls, then this many a second: ample for a CLI or a console, short of a flood. */
export const ADMIN_BURST = 30;
export const ADMIN_PER_SECOND = 10;

/** A tenant's key on the admin API. */
export class AdminKeyRequiredError extends Error {
  constructor() {
    super('This is an API key, not an admin key: the admin API needs a key of PGW_SERVER__ADMIN_KEYS');
    this.name = 'AdminKeyRequiredError';
  }
}

/** Too many admin calls: the bucket refills within `retryAfterMs`. */
export class AdminRateLimitedError extends Error {
  readonly retryAfterMs: number;

  constructor(retryAfterMs: number) {
    super('Too many admin API calls; retry later');
    this.name = 'AdminRateLimitedError';
    this.retryAfterMs = retryAfterMs;
  }
}

export const fingerprintOf = (key: string): string => `admin:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 12)}`;

const REFUSED = 'refused';

export class AdminGate {
  readonly #admins: OperatorKeys;
  readonly #isTenantKey: (key: string) => MaybePromise<boolean>;
  /** Bucket id → tokens and when they were counted (monotonic ms). At most one per admin key, and one for the refused. */
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(admins: OperatorKeys, isTenantKey: (key: string) => MaybePromise<boolean>) {
    this.#admins = admins;
    this.#isTenantKey = isTenantKey;
  }

  /** The actor of an admin call, or the refusal thrown. */
  async actorOf(headers: Parameters<typeof presentedKey>[0]): Promise<string> {
    const key = presentedKey(headers);
    if (key !== undefined && key !== '' && this.#admins.admits(key)) {
      const actor = fingerprintOf(key);
      this.#take(actor);
      return actor;
    }
    this.#take(REFUSED);
    const tenant = key === undefined ? false : this.#isTenantKey(key);
    if (isPromise(tenant) ? await tenant : tenant) throw new AdminKeyRequiredError();
    throw new UnauthorizedError();
  }

  #take(bucketId: string): void {
    const now = performance.now();
    const bucket = this.#buckets.get(bucketId) ?? { tokens: ADMIN_BURST, at: now };
    bucket.tokens = Math.min(ADMIN_BURST, bucket.tokens + ((now - bucket.at) / 1000) * ADMIN_PER_SECOND);
    bucket.at = now;
    this.#buckets.set(bucketId, bucket);
    if (bucket.tokens < 1) throw new AdminRateLimitedError(((1 - bucket.tokens) / ADMIN_PER_SECOND) * 1000);
    bucket.tokens -= 1;
  }
}
