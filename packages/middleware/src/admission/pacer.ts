import type { Source } from '@pgw/core';

interface Lane {
  /** 0 = the source advertises no concurrency limit. */
  readonly ceiling: number;
  cap: number;
  inflight: number;
}

/**
 * Adaptive concurrency per source (AIMD): a cap between 1 and the source's `maxConcurrency`; every
 * 429 halves it, every success raises it by one. Protects upstreams that rate-limit below their
 * advertised limits. Process-local by design: it reacts to what this process sees.
 */
export class Pacer {
  private readonly lanes = new Map<string, Lane>();

  constructor(sources: ReadonlyArray<Pick<Source, 'name' | 'maxConcurrency'>>) {
    for (const source of sources) {
      const ceiling = source.maxConcurrency;
      this.lanes.set(source.name, { ceiling, cap: ceiling > 0 ? ceiling : Number.POSITIVE_INFINITY, inflight: 0 });
    }
  }

  /** Takes a slot when the source is under its current cap. */
  tryEnter(source: string): boolean {
    const lane = this.lane(source);
    if (lane.inflight >= lane.cap) return false;
    lane.inflight += 1;
    return true;
  }

  leave(source: string): void {
    const lane = this.lane(source);
    lane.inflight = Math.max(0, lane.inflight - 1);
  }

  onRateLimited(source: string): void {
    const lane = this.lane(source);
    // An unlimited source learns its first cap from what was in flight when the upstream pushed back.
    const base = Number.isFinite(lane.cap) ? lane.cap : Math.max(1, lane.inflight);
    lane.cap = Math.max(1, Math.floor(base / 2));
  }

  onSuccess(source: string): void {
    const lane = this.lane(source);
    if (!Number.isFinite(lane.cap)) return;
    lane.cap = lane.ceiling > 0 ? Math.min(lane.ceiling, lane.cap + 1) : lane.cap + 1;
  }

  snapshot(source: string): { cap: number; inflight: number } {
    const lane = this.lane(source);
    return { cap: lane.cap, inflight: lane.inflight };
  }

  private lane(source: string): Lane {
    const lane = this.lanes.get(source);
    if (!lane) throw new RangeError(`pacer: unknown source '${source}'`);
    return lane;
  }
}
