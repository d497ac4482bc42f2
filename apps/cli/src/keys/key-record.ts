/**
 * The admin API's shapes as `pgw keys` reads them (pinned in the keys contract of issue 49): a key's
 * record, never the key itself, except in the one answer of create and rotate.
 */

export interface KeyLimits {
  readonly rpm: number;
  readonly tpm: number;
  readonly maxConcurrency: number;
}

export interface KeyUsage {
  readonly rpmUsed: number;
  readonly tpmUsed: number;
  readonly inflight: number;
  readonly spentUsd: number;
}

export interface KeyRecord {
  readonly object: 'api_key';
  readonly id: string;
  readonly name: string | null;
  readonly tenant: string;
  readonly models: readonly string[] | null;
  readonly mcp: readonly string[] | null;
  readonly priority: string;
  readonly limits: KeyLimits;
  readonly budget: { readonly usd: number; readonly window: string } | null;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly state: string;
  readonly prefix: string;
  /** `GET /admin/keys/{id}` only. */
  readonly usage?: KeyUsage;
}

/** The answer of create and rotate: the record and, this once, the key. */
export interface IssuedKey extends KeyRecord {
  readonly key: string;
  /** Rotate only: until when the previous key still works. */
  readonly previousKeyExpiresAt?: string;
}

export interface KeyList {
  readonly object: 'list';
  readonly data: readonly KeyRecord[];
}
