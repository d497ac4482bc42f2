/** The console's charts: the y axis from 0 to the peak, the points spread over the width, and their text. */
import { describe, expect, it } from 'vitest';
import { chart, charts, legend, peak, polyline, type ChartSeries } from '../src/console/browser/charts.js';
import type { PointSnapshot } from '../src/console/browser/snapshot.js';
import { byTag, consoleState, findAll, received, textOf } from './console-snapshot.js';

const calls: ChartSeries = { name: 'calls', css: 'calls', value: (p) => p.calls };
const p50: ChartSeries = { name: 'p50', css: 'p50', value: (p) => p.p50Ms ?? undefined };
const point = (calls: number, p50Ms?: number): PointSnapshot => ({ calls, errors: 0, ...(p50Ms === undefined ? {} : { p50Ms }) });

describe('the console charts', () => {
  it('scales the largest value of any series to the top (y 4) and 0 to the axis (y 86), over the width from 4 to 296', () => {
    const points = [point(0), point(5), point(10)];
    expect(peak([calls], points)).toBe(10);
    expect(polyline(calls, points, 10)).toBe('4.0,86.0 150.0,45.0 296.0,4.0');
    // A second series with a larger peak flattens the first.
    expect(polyline(calls, points, 20)).toBe('4.0,86.0 150.0,65.5 296.0,45.0');
  });

  it('skips the steps where a series has no value, and draws all at the axis when every value is 0', () => {
    const points = [point(0, 100), point(0), point(0, 300)];
    expect(polyline(p50, points, 300)).toBe('4.0,58.7 296.0,4.0');
    expect(polyline(calls, points, 0)).toBe('4.0,86.0 150.0,86.0 296.0,86.0');
    expect(peak([calls], [])).toBe(0);
  });

  it('draws a lone point as a short dash, so a single busy step still shows', () => {
    expect(polyline(p50, [point(1), point(1, 40), point(1)], 40)).toBe('150.0,4.0 153.0,4.0');
    expect(polyline(calls, [point(2)], 2)).toBe('4.0,4.0 7.0,4.0');
  });

  it('says each series now and the peak, in numbers a person reads', () => {
    expect(legend([calls, p50], [point(250, 1234.5), point(12.345)], ' ms')).toBe('calls now 12.3 ms · p50 now — · peak 1235 ms');
    expect(legend([calls], [], '/s')).toBe('calls now — · peak 0.00/s');
  });

  it('is a figure with a caption, a drawing hidden from screen readers and the legend as text', () => {
    const figure = chart('Latency', ' ms', [p50], [point(1, 20), point(1, 40)]);
    expect(figure.attrs).toEqual({ class: 'chart' });
    expect(findAll(figure, byTag('figcaption')).map(textOf)).toEqual(['Latency']);
    const [drawing] = findAll(figure, (element) => element.svg && element.tag === 'svg');
    expect(drawing!.attrs).toEqual({ viewBox: '0 0 300 90', 'aria-hidden': 'true', focusable: 'false' });
    expect(drawing!.children).toEqual([
      { tag: 'line', svg: true, attrs: { x1: '4', x2: '296', y1: '86', y2: '86', class: 'axis' }, children: [] },
      { tag: 'polyline', svg: true, attrs: { points: '4.0,45.0 296.0,4.0', class: 'line p50' }, children: [] },
    ]);
    expect(findAll(figure, byTag('p')).map(textOf)).toEqual(['p50 now 40.0 ms · peak 40.0 ms']);
  });

  it('charts calls per second, the error rate in percent and the latency p50 and p99 of the state', () => {
    const state = received(consoleState({
      seriesHere: {
        bucketMs: 5_000,
        points: [
          { at: 0, calls: 0, errors: 0, p50Ms: undefined, p99Ms: undefined },
          { at: 5_000, calls: 10, errors: 1, p50Ms: 120, p99Ms: 480 },
        ],
      },
    }));
    expect(charts(state).map((figure) => findAll(figure, byTag('p')).map(textOf)[0])).toEqual([
      'calls now 2.00/s · peak 2.00/s',
      'errors now 10.0% · peak 10.0%',
      'p50 now 120 ms · p99 now 480 ms · peak 480 ms',
    ]);
  });
});
