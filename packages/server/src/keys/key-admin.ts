/**
 * What the admin API does to stored keys: create, change, rotate and revoke, each one store
 * transaction with its audit row (the actor is the admin key's fingerprint; the changes never hold a
 * secret). After its own write the server drops its cache at once, so its next request reads the
 * change even before the store's signal comes back.
 */
import type { Clock, KeyAuditEntry, StoredKey } from '@pgw/core';
import { DEFAULT_GRACE_S, futureTime, type CreateBody, type PatchBody } from './admin-body.js';
import { newKey, newKeyId } from './key-material.js';
import { isLive } from './stored-keys.js';
import type { StoredKeys } from './stored-keys.js';

const UNBOUNDED = { rpm: 0, tpm: 0, maxConcurrency: 0 } as const;

/** A change asked of a revoked (or expired) key, which stays as it is. */
export class KeyNotLiveError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Key '${id}' is revoked or expired; create a new key instead`);
    this.name = 'KeyNotLiveError';
    this.id = id;
  }
}

/** No stored key has this id. */
export class KeyNotFoundError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Key with id '${id}' not found.`);
    this.name = 'KeyNotFoundError';
    this.id = id;
  }
}

export class KeyAdmin {
  readonly #keys: StoredKeys;
  readonly #now: Clock;

  constructor(keys: StoredKeys, now: Clock) {
    this.#keys = keys;
    this.#now = now;
  }

  async create(body: CreateBody, actor: string): Promise<{ record: StoredKey; key: string }> {
    const now = this.#now();
    const made = newKey();
    const record: StoredKey = {
      id: newKeyId(),
      name: body.name ?? '',
      tenant: body.tenant,
      models: body.models ?? null,
      mcp: body.mcp ?? null,
      priority: body.priority ?? 'interactive',
      limits: { ...UNBOUNDED, ...body.limits },
      budget: body.budget ?? null,
      expiresAt: body.expiresAt === undefined ? null : futureTime(body.expiresAt, now),
      createdAt: now,
      lastUsedAt: null,
      state: 'active',
      prefix: made.prefix,
      secret: made.secret,
      previous: null,
    };
    const { secret: _secret, previous: _previous, lastUsedAt: _lastUsedAt, ...shown } = record;
    await (await this.#keys.store()).insert(record, this.#audit(actor, 'create', record.id, shown));
    this.#keys.forget();
    return { record, key: made.key };
  }

  async update(id: string, body: PatchBody, actor: string): Promise<StoredKey> {
    const now = this.#now();
    const expiresAt = body.expiresAt === undefined ? undefined : body.expiresAt === null ? null : futureTime(body.expiresAt, now);
    return this.#change(id, (current) => {
      const next: StoredKey = {
        ...current,
        ...(body.name !== undefined && { name: body.name }),
        ...(body.models !== undefined && { models: body.models }),
        ...(body.mcp !== undefined && { mcp: body.mcp }),
        ...(body.priority !== undefined && { priority: body.priority }),
        ...(body.limits !== undefined && { limits: { ...current.limits, ...body.limits } }),
        ...(body.budget !== undefined && { budget: body.budget }),
        ...(expiresAt !== undefined && { expiresAt }),
      };
      return { key: next, audit: this.#audit(actor, 'update', id, { ...body }) };
    });
  }

  /** A new key for the record; the old one stays valid for `graceS` (0: refused at once). */
  async rotate(id: string, graceS: number | undefined, actor: string): Promise<{ record: StoredKey; key: string; previousKeyExpiresAt: number }> {
    const now = this.#now();
    const grace = (graceS ?? DEFAULT_GRACE_S) * 1000;
    const made = newKey();
    const record = await this.#change(id, (current) => ({
      key: {
        ...current,
        secret: made.secret,
        prefix: made.prefix,
        // A second rotation within a grace ends the first's: only the key just replaced stays valid.
        previous: grace === 0 ? null : { ...current.secret, validUntil: now + grace },
        state: grace === 0 ? 'active' : 'rotating',
      },
      audit: this.#audit(actor, 'rotate', id, { graceS: grace / 1000, prefix: made.prefix }),
    }));
    return { record, key: made.key, previousKeyExpiresAt: now + grace };
  }

  /** Every key of the record refused from now on; revoking a revoked key changes nothing. */
  async revoke(id: string, actor: string): Promise<StoredKey> {
    const store = await this.#keys.store();
    const record = await store.update(id, (current) =>
      current.state === 'revoked' ? undefined : { key: { ...current, state: 'revoked', previous: null }, audit: this.#audit(actor, 'revoke', id, { state: 'revoked' }) },
    );
    if (record === undefined) throw new KeyNotFoundError(id);
    this.#keys.forget();
    return record;
  }

  /** A change of a live key (a revoked or expired one is refused). */
  async #change(id: string, change: (current: StoredKey) => { key: StoredKey; audit: KeyAuditEntry }): Promise<StoredKey> {
    const now = this.#now();
    let notLive = false;
    const record = await (await this.#keys.store()).update(id, (current) => {
      notLive = !isLive(current, now);
      return notLive ? undefined : change(current);
    });
    if (record === undefined) throw new KeyNotFoundError(id);
    if (notLive) throw new KeyNotLiveError(id);
    this.#keys.forget();
    return record;
  }

  #audit(actor: string, action: KeyAuditEntry['action'], keyId: string, changes: Record<string, unknown>): KeyAuditEntry {
    return { at: this.#now(), actor, action, keyId, changes };
  }
}
