// The fleet KeyStore of `pgw serve` (see README.md), loaded by @pgw/server only when PGW_KEYS__DSN is set.
// Where the behaviours live: pg-key-store.ts keeps the keys, their audit log and the version, and tells every server of a change (LISTEN/NOTIFY, with a version check as backstop).
export { DEFAULT_KEYS_SCHEMA, PgKeyStore, type PgKeyStoreOptions } from './pg-key-store.js';
