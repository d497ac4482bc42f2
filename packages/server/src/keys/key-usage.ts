/**
 * A stored key's use as the admin API shows it. The governor bounds a key within each scope it calls
 * (docs/decisions.md, key gates per scope), so each figure is the highest over the scopes this server
 * has built: the scope nearest its bound is the one that refuses first.
 */
import type { KeyBounds, KeyStatus } from '@pgw/core';
import type { BuiltClient } from '../scope-clients.js';

export type KeyUsage = Pick<KeyStatus, 'rpmUsed' | 'tpmUsed' | 'inflight' | 'spentUsd'>;

export async function keyUsage(built: readonly BuiltClient[], bounds: KeyBounds): Promise<KeyUsage> {
  const statuses = await Promise.all(built.flatMap(({ client }) => (client === undefined ? [] : [client.keyStatus(bounds)])));
  const highest = (field: keyof KeyUsage) => Math.max(0, ...statuses.map((status) => status[field]));
  return { rpmUsed: highest('rpmUsed'), tpmUsed: highest('tpmUsed'), inflight: highest('inflight'), spentUsd: highest('spentUsd') };
}
