/**
 * The limiter's model-based property run: thousands of random operations against an adapter and a
 * plain model of docs/architecture.md#admission-the-six-gates side by side. Every admission decision must match the model's; at
 * checkpoints and at the end the books (inflight, RPM, TPM) must equal the model's and never go negative
 * (an unlimited source's usage may be counted per second, see `checkBooks`).
 */
import fc from 'fast-check';
import type { Clock, GlobalLimits, AdmissionGate, LimitGate, Limiter, Permit, SourceLimits } from '@pgw/core';
import { expect } from 'vitest';
import { FakeClock } from './fake-clock.js';

export const LIMITER_PROPERTY_OPS = 5_000;
const WINDOW_MS = 60_000;
const SOURCES = ['s0', 's1', 's2'] as const;
const CHECK_EVERY = 100;

type Op =
  | { kind: 'enter'; source: number; est: number }
  | { kind: 'settle'; pick: number; actual: number }
  | { kind: 'release'; pick: number }
  | { kind: 'abandon'; pick: number }
  | { kind: 'again'; pick: number }
  | { kind: 'advance'; ms: number };

interface Scenario {
  sources: SourceLimits[];
  global: GlobalLimits;
  leaseTtlMs: number;
  ops: Op[];
}

/** One admitted permit as the model sees it. */
interface Booked {
  readonly source: string;
  readonly ts: number;
  readonly permit: Permit;
  tokens: number;
  settled: boolean;
  released: boolean;
}

type Expected = { ok: true } | { ok: false; gate: LimitGate; retryAfterMs?: number };

/** Limits and estimates are drawn so that most entries are admitted and every gate still fills now and then. */
const limitsArb = (scale: number): fc.Arbitrary<SourceLimits> =>
  fc.record({
    rpm: fc.oneof(fc.constant(0), fc.integer({ min: 5 * scale, max: 40 * scale })),
    tpm: fc.oneof(fc.constant(0), fc.integer({ min: 2_000 * scale, max: 20_000 * scale })),
    maxConcurrency: fc.oneof(fc.constant(0), fc.integer({ min: scale, max: 8 * scale })),
  });

const tokensArb = fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 9, arbitrary: fc.integer({ min: 1, max: 1_000 }) });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('enter' as const), source: fc.nat(SOURCES.length - 1), est: tokensArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), actual: tokensArb }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abandon' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('again' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof({ weight: 8, arbitrary: fc.nat(3_000) }, { weight: 1, arbitrary: fc.integer({ min: 3_000, max: 70_000 }) }),
    }),
  },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.noBias(
  fc.record({
    sources: fc.array(limitsArb(1), { minLength: SOURCES.length, maxLength: SOURCES.length }),
    global: limitsArb(2),
    leaseTtlMs: fc.integer({ min: 1_000, max: 90_000 }),
    ops: fc.array(opArb, { minLength: LIMITER_PROPERTY_OPS, maxLength: LIMITER_PROPERTY_OPS }),
  }),
);

/** How often each admission verdict came up in a run: `ok` or the denying gate. */
export type AdmissionTally = Partial<Record<'ok' | AdmissionGate, number>>;

/** Runs one scenario drawn from `seed` (no shrinking: a failure names the operation it happened at). */
export async function limiterPropertyRun(
  seed: number,
  makeLimiter: (options: {
    sources: Record<string, SourceLimits>;
    global: GlobalLimits;
    leaseTtlMs: number;
    now: Clock;
  }) => Promise<Limiter>,
): Promise<AdmissionTally> {
  const tally: AdmissionTally = {};
  await fc.assert(
    fc.asyncProperty(scenarioArb, async (scenario) => {
      const clock = new FakeClock();
      const sources = Object.fromEntries(SOURCES.map((name, i) => [name, scenario.sources[i]!]));
      const limiter = await makeLimiter({ sources, global: scenario.global, leaseTtlMs: scenario.leaseTtlMs, now: clock.now });
      await new LimiterModelRun(limiter, clock, sources, scenario, tally).play();
    }),
    { seed, numRuns: 1, endOnFailure: true },
  );
  return tally;
}

class LimiterModelRun {
  private booked: Booked[] = [];
  /** Permits the run still holds handles to, for settle / release / abandon. */
  private readonly held: Booked[] = [];
  /** Settled and released permits, kept to check that repeating either changes nothing. */
  private readonly done: Booked[] = [];

  constructor(
    private readonly limiter: Limiter,
    private readonly clock: FakeClock,
    private readonly limits: Record<string, SourceLimits>,
    private readonly scenario: Scenario,
    private readonly tally: AdmissionTally,
  ) {}

  async play(): Promise<void> {
    for (const [index, op] of this.scenario.ops.entries()) {
      const where = `op #${index} ${JSON.stringify(op)}`;
      await this.apply(op, where);
      if (index % CHECK_EVERY === CHECK_EVERY - 1) await this.checkBooks(where);
    }
    await this.checkBooks('after the last op');
    // docs/architecture.md#invariants: once every lease is released or reclaimed and the window passed, the books are empty.
    for (const entry of this.held) await entry.permit.release();
    this.clock.advance(Math.max(this.scenario.leaseTtlMs, WINDOW_MS));
    for (const source of SOURCES) {
      expect(await this.limiter.sourceStats(source), `${source} after the run`).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
    }
  }

  private async apply(op: Op, where: string): Promise<void> {
    switch (op.kind) {
      case 'enter': {
        const source = SOURCES[op.source]!;
        const expected = this.expectedAdmission(source, op.est);
        const admission = await this.limiter.tryEnter(source, op.est);
        const verdict = admission.ok ? 'ok' : admission.gate;
        this.tally[verdict] = (this.tally[verdict] ?? 0) + 1;
        if (admission.ok) {
          expect({ ok: true }, where).toEqual(expected);
          const entry: Booked = { source, ts: this.clock.now(), permit: admission.permit, tokens: op.est, settled: false, released: false };
          this.booked.push(entry);
          this.held.push(entry);
        } else if (admission.gate.endsWith('_concurrency')) {
          expect({ ok: false, gate: admission.gate }, where).toEqual(expected);
          expect(admission.retryAfterMs, where).toBeGreaterThan(0);
        } else {
          expect({ ok: false, gate: admission.gate, retryAfterMs: admission.retryAfterMs }, where).toEqual(expected);
        }
        return;
      }
      case 'settle':
      case 'release': {
        const entry = this.held[op.pick % this.held.length];
        if (entry === undefined) return;
        if (op.kind === 'settle') {
          await entry.permit.settle(op.actual);
          if (!entry.settled) entry.tokens = op.actual;
          entry.settled = true;
        } else {
          await entry.permit.release();
          entry.released = true;
        }
        if (entry.settled && entry.released) this.retire(entry);
        return;
      }
      case 'abandon': {
        // The holder vanishes: its permit is never settled nor released, only its lease expiring frees it.
        const entry = this.held[op.pick % this.held.length];
        if (entry !== undefined) this.held.splice(this.held.indexOf(entry), 1);
        return;
      }
      case 'again': {
        const entry = this.done[op.pick % this.done.length];
        if (entry === undefined) return;
        await entry.permit.settle(entry.tokens + 1_000);
        await entry.permit.release();
        return;
      }
      case 'advance':
        this.clock.advance(op.ms);
        this.forgetIrrelevant();
        return;
    }
  }

  private retire(entry: Booked): void {
    this.held.splice(this.held.indexOf(entry), 1);
    this.done.push(entry);
    if (this.done.length > 50) this.done.shift();
  }

  /** Entries out of the window whose lease is over no longer affect any gate. */
  private forgetIrrelevant(): void {
    const now = this.clock.now();
    this.booked = this.booked.filter((b) => now < b.ts + WINDOW_MS || now < b.ts + this.scenario.leaseTtlMs);
  }

  private expectedAdmission(source: string, est: number): Expected {
    const now = this.clock.now();
    const ofSource = this.booked.filter((b) => b.source === source);
    return (
      this.expectedDenial('source', this.limits[source]!, ofSource, est, now) ??
      this.expectedDenial('global', this.scenario.global, this.booked, est, now) ?? { ok: true }
    );
  }

  private expectedDenial(
    level: 'source' | 'global',
    limits: SourceLimits,
    entries: Booked[],
    est: number,
    now: number,
  ): Expected | undefined {
    const inWindow = entries.filter((b) => now < b.ts + WINDOW_MS);
    const tokens = inWindow.reduce((sum, b) => sum + b.tokens, 0);
    const inflight = entries.filter((b) => !b.released && now < b.ts + this.scenario.leaseTtlMs).length;
    const oldestLeavesIn = Math.min(...inWindow.map((b) => b.ts)) + WINDOW_MS - now;
    if (limits.rpm > 0 && inWindow.length >= limits.rpm) return { ok: false, gate: `${level}_rpm`, retryAfterMs: oldestLeavesIn };
    if (limits.tpm > 0 && tokens > 0 && tokens + est > limits.tpm) return { ok: false, gate: `${level}_tpm`, retryAfterMs: oldestLeavesIn };
    if (limits.maxConcurrency > 0 && inflight >= limits.maxConcurrency) return { ok: false, gate: `${level}_concurrency` };
    return undefined;
  }

  /**
   * A source with neither an RPM nor a TPM limit may count its usage in per-second buckets (an entry
   * leaving up to 1 s early, see SourceStats): its books must then equal the exact model's or the
   * bucketed one's.
   */
  private async checkBooks(where: string): Promise<void> {
    const now = this.clock.now();
    for (const source of SOURCES) {
      const mine = this.booked.filter((b) => b.source === source);
      const inflight = mine.filter((b) => !b.released && now < b.ts + this.scenario.leaseTtlMs).length;
      const books = (counts: (b: Booked) => boolean) => {
        const inWindow = mine.filter(counts);
        return { inflight, rpmUsed: inWindow.length, tpmUsed: inWindow.reduce((sum, b) => sum + b.tokens, 0) };
      };
      const expected = [books((b) => now < b.ts + WINDOW_MS)];
      const { rpm, tpm } = this.limits[source]!;
      if (rpm === 0 && tpm === 0) expected.push(books((b) => now < Math.floor(b.ts / 1_000) * 1_000 + WINDOW_MS));
      const stats = await this.limiter.sourceStats(source);
      expect(expected, `${source} books at ${where}`).toContainEqual(stats);
      expect(Math.min(stats.inflight, stats.rpmUsed, stats.tpmUsed), where).toBeGreaterThanOrEqual(0);
    }
  }
}
