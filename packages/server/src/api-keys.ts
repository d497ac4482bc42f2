/**
 * Bearer keys → tenants. A presented key is compared with every configured key in constant time
 * (SHA-256 digests of equal length, `timingSafeEqual`, no early exit), so neither a key's content
 * nor its position in the table shows in the answer time. Keys are kept only as digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export class ApiKeys {
  readonly #entries: readonly { digest: Buffer; tenantId: string }[];

  constructor(keys: ReadonlyMap<string, string>) {
    this.#entries = [...keys].map(([key, tenantId]) => ({ digest: digest(key), tenantId }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The tenant of `Authorization: Bearer <key>`, or undefined for a missing or unknown key. */
  tenantOf(authorization: string | undefined): string | undefined {
    if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined;
    const presented = digest(authorization.slice(7).trim());
    let tenant: string | undefined;
    for (const entry of this.#entries) if (timingSafeEqual(entry.digest, presented) && tenant === undefined) tenant = entry.tenantId;
    return tenant;
  }
}
