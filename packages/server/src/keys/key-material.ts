/**
 * A stored key's secret: `pgw_sk_` + 32 random bytes as base64url (256 bits; the prefix lets secret
 * scanners find a leaked one). Kept only as HMAC-SHA-256 under a random salt of its own: the key is
 * high-entropy, so no slow hash is needed (nothing to guess), and the salt makes equal digests
 * impossible to spot across stores. The first 8 characters after the prefix are the lookup column, so
 * a request reads the few rows they name and compares digests in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeySecret } from '@pgw/core';

export const KEY_PREFIX = 'pgw_sk_';
const SECRET_BYTES = 32;
const LOOKUP_CHARS = 8;
/** What a person sees to recognise a key: the prefix and 4 characters (of 43: 39 stay secret). */
const SHOWN_CHARS = 4;
const SALT_BYTES = 16;
const WELL_FORMED = /^pgw_sk_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  /** The key: shown once, in the answer that made it. */
  readonly key: string;
  readonly secret: KeySecret;
  readonly prefix: string;
}

export function newKey(): NewKey {
  const key = KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  const salt = new Uint8Array(randomBytes(SALT_BYTES));
  return { key, prefix: key.slice(0, KEY_PREFIX.length + SHOWN_CHARS), secret: { lookup: lookupOf(key), salt, digest: digestOf(key, salt) } };
}

/** `key_` + 16 hex characters: the stable id, not secret. */
export const newKeyId = (): string => `key_${randomBytes(8).toString('hex')}`;

/** The lookup of a presented key, or undefined when it is not shaped as a stored key (no read at all). */
export const lookupIfStored = (key: string): string | undefined => (WELL_FORMED.test(key) ? lookupOf(key) : undefined);

const lookupOf = (key: string) => key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_CHARS);

const digestOf = (key: string, salt: Uint8Array): Uint8Array => new Uint8Array(createHmac('sha256', salt).update(key, 'utf8').digest());

/** Whether `key` is the secret's key: its digest compared in constant time. */
export function proves(key: string, secret: KeySecret): boolean {
  const digest = digestOf(key, secret.salt);
  return digest.length === secret.digest.length && timingSafeEqual(digest, secret.digest);
}
