/** The small line charts of this process's calls: one polyline per series, the y axis from 0 to the largest value. */
import { chartNumber } from './format.js';
import type { ConsoleSnapshot, PointSnapshot } from './snapshot.js';
import { h, svg, type ViewElement } from './view.js';

export interface ChartSeries {
  readonly name: string;
  /** Its line's class in the style sheet. */
  readonly css: string;
  /** Undefined: no value at that point (no call ended), which the line skips. */
  value(point: PointSnapshot): number | undefined;
}

const WIDTH = 300;
const HEIGHT = 90;
const PAD = 4;
/** How far a lone point's dash reaches: a single busy step still shows. */
const DASH = 3;

/** The largest value of any series (0 when there is none). */
export function peak(series: readonly ChartSeries[], points: readonly PointSnapshot[]): number {
  let max = 0;
  for (const line of series) for (const point of points) max = Math.max(max, line.value(point) ?? 0);
  return max;
}

/** A polyline's `points`: the points spread over the width, each value scaled so `max` reaches the top. */
export function polyline(line: ChartSeries, points: readonly PointSnapshot[], max: number): string {
  const coords: [number, number][] = [];
  points.forEach((point, i) => {
    const value = line.value(point);
    if (value === undefined) return;
    const x = PAD + (i * (WIDTH - 2 * PAD)) / Math.max(1, points.length - 1);
    const y = HEIGHT - PAD - (max > 0 ? (value / max) * (HEIGHT - 2 * PAD) : 0);
    coords.push([x, y]);
  });
  const [only] = coords;
  if (coords.length === 1 && only !== undefined) coords.push([only[0] + DASH, only[1]]);
  return coords.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
}

/** The chart's text for everyone (the drawing is hidden from screen readers): each series now, and the peak. */
export function legend(series: readonly ChartSeries[], points: readonly PointSnapshot[], unit: string): string {
  const last = points.at(-1);
  const now = series.map((line) => {
    const value = last === undefined ? undefined : line.value(last);
    return `${line.name} now ${value === undefined ? '—' : chartNumber(value) + unit}`;
  });
  return [...now, `peak ${chartNumber(peak(series, points))}${unit}`].join(' · ');
}

export function chart(title: string, unit: string, series: readonly ChartSeries[], points: readonly PointSnapshot[]): ViewElement {
  const max = peak(series, points);
  const drawing = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, 'aria-hidden': 'true', focusable: 'false' }, [
    svg('line', { x1: PAD, x2: WIDTH - PAD, y1: HEIGHT - PAD, y2: HEIGHT - PAD, class: 'axis' }),
    ...series.map((line) => svg('polyline', { points: polyline(line, points, max), class: `line ${line.css}` })),
  ]);
  return h('figure', { class: 'chart' }, [h('figcaption', {}, [title]), drawing, h('p', { class: 'legend' }, [legend(series, points, unit)])]);
}

const orUndefined = (value: number | null | undefined) => value ?? undefined;

/** Calls per second, error rate and latency (p50, p99) over the snapshot's steps. */
export function charts(state: ConsoleSnapshot): ViewElement[] {
  const { points, bucketMs } = state.seriesHere;
  const perS = bucketMs / 1000;
  return [
    chart('Calls per second', '/s', [{ name: 'calls', css: 'calls', value: (p) => p.calls / perS }], points),
    chart('Error rate', '%', [{ name: 'errors', css: 'errors', value: (p) => (p.calls === 0 ? 0 : (100 * p.errors) / p.calls) }], points),
    chart('Latency', ' ms', [
      { name: 'p50', css: 'p50', value: (p) => orUndefined(p.p50Ms) },
      { name: 'p99', css: 'p99', value: (p) => orUndefined(p.p99Ms) },
    ], points),
  ];
}
