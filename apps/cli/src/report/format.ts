/** Number and time formats shared by the terminal table and the HTML page. */

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** Small costs keep their significant digits: one call often costs a fraction of a cent. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  if (Math.abs(usd) >= 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(8).replace(/0+$/, '')}`;
}

/**
 * A cost for machine-readable output: 12 significant digits, which drops floating-point noise
 * (`1 × 0.15 + 3 × 0.6` per million tokens is 0.0000019499999999999995) and keeps every real digit.
 */
export function displayUsd(usd: number): number {
  return Number(usd.toPrecision(12));
}

/** UTC, minute precision: `2026-11-30 08:15Z`. */
export function formatInstant(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** A bucket's axis label: the time of day (with seconds for sub-minute buckets), with the date only when the range spans days. */
export function formatBucketLabel(ms: number, spansDays: boolean, bucketMs: number): string {
  const iso = new Date(ms).toISOString();
  const time = iso.slice(11, bucketMs < 60_000 ? 19 : 16);
  return spansDays ? `${iso.slice(5, 10)} ${time}` : time;
}

export function formatDuration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms / 1000}s`;
}

/** `2026-01-15 08:00Z … now` */
export function formatRange(since: number | undefined, until: number | undefined): string {
  return `${since === undefined ? 'start' : formatInstant(since)} … ${until === undefined ? 'now' : formatInstant(until)}`;
}
