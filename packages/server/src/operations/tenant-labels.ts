/**
 * The `tenant` label of the metrics, bounded: the N busiest tenants (by requests since the server
 * started) keep their name, every other is `other`, so a table of a thousand keys cannot grow the
 * scrape without bound. Requests are counted in a Space-Saving sketch of 10·N entries (memory bounded
 * too): a tenant taking over an evicted entry inherits its count as possible error, so only what it
 * was surely seen counts. A tenant surely busier than the least busy named one takes its name; the
 * one displaced is told, so its series can be removed.
 */
export const OTHER_TENANT = 'other';
/** The label of the tenant `""` (calls without keys), as the report shows it. */
export const NO_TENANT = '(none)';

export class TenantLabels {
  readonly #limit: number;
  readonly #capacity: number;
  /** Per tenant: its estimated requests, and how much of that it may not have made (inherited on eviction). */
  readonly #counts = new Map<string, { count: number; error: number }>();
  readonly #named = new Set<string>();
  readonly #onDisplaced: (tenant: string) => void;

  constructor(limit: number, onDisplaced: (label: string) => void = () => {}) {
    this.#limit = limit;
    this.#capacity = Math.max(10 * limit, 1);
    this.#onDisplaced = onDisplaced;
  }

  /** Counts one request of `tenantId` and returns the label it is counted under. */
  labelOf(tenantId: string): string {
    const tenant = tenantId === '' ? NO_TENANT : tenantId;
    const seen = this.#count(tenant);
    if (this.#named.has(tenant)) return tenant;
    if (this.#limit === 0) return OTHER_TENANT;
    if (this.#named.size < this.#limit) {
      this.#named.add(tenant);
      return tenant;
    }
    const [least, leastSeen] = this.#leastOf(this.#named, surely);
    if (seen <= leastSeen) return OTHER_TENANT;
    this.#named.delete(least);
    this.#named.add(tenant);
    this.#onDisplaced(least);
    return tenant;
  }

  /** Counts one request and returns how many the tenant surely made. */
  #count(tenant: string): number {
    let entry = this.#counts.get(tenant);
    if (entry === undefined) {
      entry = { count: 0, error: 0 };
      if (this.#counts.size >= this.#capacity) {
        // A named tenant is never evicted: its count is what a newcomer must beat.
        const unnamed = [...this.#counts.keys()].filter((key) => !this.#named.has(key));
        const [evicted, evictedCount] = this.#leastOf(unnamed, (e) => e.count);
        this.#counts.delete(evicted);
        entry = { count: evictedCount, error: evictedCount };
      }
      this.#counts.set(tenant, entry);
    }
    entry.count += 1;
    return surely(entry);
  }

  #leastOf(tenants: Iterable<string>, measure: (entry: { count: number; error: number }) => number): [string, number] {
    let least: [string, number] = ['', Number.POSITIVE_INFINITY];
    for (const tenant of tenants) {
      const entry = this.#counts.get(tenant);
      const value = entry === undefined ? 0 : measure(entry);
      if (value < least[1]) least = [tenant, value];
    }
    return least;
  }
}

const surely = (entry: { count: number; error: number }) => entry.count - entry.error;
