/** Side-by-side measurement: contenders run interleaved in one process, results as medians and ratios. */
import os from 'node:os';
import { median, percentile, percentiles } from '../plain/measure.mjs';

export interface RoundContext {
  /** The discarded warm-up round. */
  warmUp: boolean;
}

export interface Contender {
  name: string;
  /** Runs one round; returns the number of operations completed. */
  round(context: RoundContext): Promise<number>;
}

export interface ContenderResult {
  name: string;
  /** Operations per second, one entry per measured round. */
  rates: number[];
  median: number;
  /** CPU µs (user + system) of this process per operation, one entry per measured round. */
  cpuUs: number[];
  medianCpuUs: number;
}

export interface InterleaveOptions {
  /** Measured rounds (one warm-up round runs before them and is discarded). */
  rounds: number;
  /** Runs before every contender's round, outside its timing (e.g. clear the mock's recordings). */
  between?: () => Promise<void>;
}

// The median and nearest-rank percentiles, shared with the plain scripts.
export { median, percentile, percentiles };

/** `value / baseline`; NaN when either is not a finite number or the baseline is not positive. */
export function ratio(value: number, baseline: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline <= 0) return Number.NaN;
  return value / baseline;
}

/**
 * Runs every contender once per round, rotating the start position each round so no contender
 * always runs first (warm caches, GC debt, a neighbour's burst). One warm-up round is discarded.
 */
export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<ContenderResult[]> {
  if (!Number.isInteger(options.rounds) || options.rounds < 1) throw new RangeError(`rounds must be an integer ≥ 1, got ${options.rounds}`);
  const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const cpuUs = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let r = -1; r < options.rounds; r++) {
    const warmUp = r < 0;
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + Math.max(r, 0)) % contenders.length]!;
      await options.between?.();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const ops = await contender.round({ warmUp });
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      if (!warmUp) {
        rates.get(contender.name)!.push(ops / seconds);
        cpuUs.get(contender.name)!.push((cpu.user + cpu.system) / ops);
      }
    }
  }
  return contenders.map((c) => {
    const list = rates.get(c.name)!;
    const cpu = cpuUs.get(c.name)!;
    return { name: c.name, rates: list, median: median(list), cpuUs: cpu, medianCpuUs: median(cpu) };
  });
}

/**
 * Runs at least `count` calls of `call` with at most `concurrency` in flight, and keeps starting
 * calls until `minMs` have passed; returns how many completed. With `latenciesMs`, each call's
 * duration is appended to it.
 */
export async function runConcurrent(
  count: number,
  concurrency: number,
  call: (i: number) => Promise<unknown>,
  latenciesMs?: number[],
  minMs = 0,
): Promise<number> {
  let next = 0;
  let done = 0;
  const until = performance.now() + minMs;
  const worker = async (): Promise<void> => {
    while (next < count || (minMs > 0 && performance.now() < until)) {
      const i = next++;
      const started = latenciesMs ? performance.now() : 0;
      await call(i);
      if (latenciesMs) latenciesMs.push(performance.now() - started);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return done;
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** `median (min–max)` of per-round figures, three significant digits. */
export function formatSpread(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  return `${formatRate(median(values))} (${formatRate(Math.min(...values))}–${formatRate(Math.max(...values))})`;
}

export function formatRatio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : 'n/a';
}

/** Rounds to three significant digits for tables (`12345` → `12300`, `1.2345` → `1.23`). */
export function formatRate(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Number(value.toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 2 });
}
