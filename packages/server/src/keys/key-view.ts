/**
 * A stored key as the admin API shows it (KEYS-API.md's KeyRecord): every field but the secret —
 * never a key, a digest, a salt or the lookup characters beyond the shown prefix.
 */
import type { KeyState, StoredKey } from '@pgw/core';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A rotation whose grace is over is an active key again, whether or not a write said so. */
export const stateOf = (key: StoredKey, now: number): KeyState => (key.state === 'rotating' && (key.previous === null || key.previous.validUntil <= now) ? 'active' : key.state);

export function keyRecordOf(key: StoredKey, now: number) {
  return {
    object: 'api_key',
    id: key.id,
    name: key.name,
    tenant: key.tenant,
    models: key.models,
    mcp: key.mcp,
    priority: key.priority,
    limits: key.limits,
    budget: key.budget,
    expiresAt: iso(key.expiresAt),
    createdAt: iso(key.createdAt),
    lastUsedAt: iso(key.lastUsedAt),
    state: stateOf(key, now),
    prefix: key.prefix,
  };
}
