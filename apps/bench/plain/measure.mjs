// What the TypeScript benches and the plain scripts both measure with: a process's CPU time from
// /proc (Linux only), the median of rounds, and nearest-rank percentiles taken from one sort.
import { readFileSync } from 'node:fs';

/** /proc/<pid>/stat counts CPU time in 1/100 s (USER_HZ). */
const TICK_MS = 10;

/** utime + stime in ms: the 12th and 13th fields after the command name (which may hold spaces). */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Nearest-rank percentiles (each `p` in 0..100) of `values`, sorted once: always measured values; NaN for none. */
export function percentiles(values, ps) {
  for (const p of ps) if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile p must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return ps.map((p) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]));
}

export function percentile(values, p) {
  return percentiles(values, [p])[0];
}

/** The middle value, or the mean of the two middle ones; NaN for none. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
