/** Width of the calls-over-time buckets when `--bucket` is not given: the finest that keeps the chart readable. */

// From one second (a demo run lasts seconds) to a week.
const LADDER_MS = [1_000, 5_000, 15_000, 60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000];
const MAX_BUCKETS = 60;

export function bucketWidthFor(spanMs: number): number {
  return LADDER_MS.find((width) => spanMs / width <= MAX_BUCKETS) ?? LADDER_MS.at(-1)!;
}
