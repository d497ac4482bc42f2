// The embedded KeyStore of `pgw serve` (see README.md).
// Where the behaviours live: sqlite-key-store.ts keeps the keys, their audit log and the change signal.
export { KEYS_FILE_NAME, SqliteKeyStore, type SqliteKeyStoreOptions } from './sqlite-key-store.js';
