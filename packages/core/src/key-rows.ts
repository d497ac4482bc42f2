/**
 * A stored key as the SQL adapters keep it (@pgw/keys-sqlite, @pgw/keys-pg): the columns a query
 * filters on, and the whole record (digests as base64) as one JSON text, so both adapters map a
 * row the same way and a new field needs no migration. `last_used_at` is a column of its own: it is
 * written apart from the record, without a change signal.
 */
import type { KeySecret, StoredKey } from './key-store.js';

export interface KeyRow {
  id: string;
  tenant: string;
  state: string;
  created_at: number;
  lookup: string;
  prev_lookup: string | null;
  last_used_at: number | null;
  record: string;
}

type SecretText = { lookup: string; salt: string; digest: string };

const textOf = (secret: KeySecret): SecretText => ({ lookup: secret.lookup, salt: Buffer.from(secret.salt).toString('base64'), digest: Buffer.from(secret.digest).toString('base64') });
// Plain Uint8Arrays, as written (a Buffer would not equal one).
const bytesOf = (base64: string) => Uint8Array.from(Buffer.from(base64, 'base64'));
const secretOf = (text: SecretText): KeySecret => ({ lookup: text.lookup, salt: bytesOf(text.salt), digest: bytesOf(text.digest) });

export function keyRowOf(key: StoredKey): KeyRow {
  const { lastUsedAt, secret, previous, ...rest } = key;
  const record = { ...rest, secret: textOf(secret), previous: previous === null ? null : { ...textOf(previous), validUntil: previous.validUntil } };
  return {
    id: key.id,
    tenant: key.tenant,
    state: key.state,
    created_at: key.createdAt,
    lookup: secret.lookup,
    prev_lookup: previous?.lookup ?? null,
    last_used_at: lastUsedAt,
    record: JSON.stringify(record),
  };
}

export function storedKeyOf(row: Pick<KeyRow, 'record' | 'last_used_at'>): StoredKey {
  const record = JSON.parse(row.record) as Omit<StoredKey, 'secret' | 'previous' | 'lastUsedAt'> & { secret: SecretText; previous: (SecretText & { validUntil: number }) | null };
  const lastUsedAt = row.last_used_at === null ? null : Number(row.last_used_at);
  return { ...record, lastUsedAt, secret: secretOf(record.secret), previous: record.previous === null ? null : { ...secretOf(record.previous), validUntil: record.previous.validUntil } };
}
