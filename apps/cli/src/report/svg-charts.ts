/**
 * The four report charts as inline SVG (no script, no external resource). Every label from the
 * database is escaped by `element`/`text`; long labels are shortened with the full text in a tooltip.
 */
import type { CallsBucket, LatencyPercentiles } from '@pgw/core';
import { formatBucketLabel, formatCount, formatMs, formatUsd } from './format.js';
import { shorten } from '../shorten.js';
import { element as el, text } from './markup.js';

export type ChartKind = 'calls-over-time' | 'latency' | 'failures' | 'cost';

// Wide enough to fill a 1280 px window; narrower windows scale the charts down (max-width: 100%).
const WIDTH = 1200;
const MARGIN = { left: 64, right: 16, top: 28, bottom: 44 };
const COLOR = {
  ok: '#4e79a7',
  failed: '#e15759',
  failedAttempt: '#f28e2b',
  p50: '#4e79a7',
  p95: '#f28e2b',
  p99: '#e15759',
  cost: '#59a14f',
};
/** Above this many slots the time axis follows the data instead of the requested range. */
const MAX_TIME_SLOTS = 2_000;

function chart(kind: ChartKind, title: string, height: number, ...body: string[]): string {
  const id = `chart-${kind}-title`;
  return el(
    'svg',
    { 'data-chart': kind, role: 'img', 'aria-labelledby': id, viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height },
    el('title', { id }, text(title)),
    ...body,
  );
}

function emptyChart(kind: ChartKind, title: string): string {
  const note = el('text', { x: WIDTH / 2, y: 44, 'text-anchor': 'middle', class: 'empty' }, 'no data in this range');
  return chart(kind, title, 80, note);
}

/** A rounded axis maximum and tick step (1, 2 or 5 × 10ⁿ) for values up to `max`. */
export function niceScale(max: number, options: { integer?: boolean } = {}): { max: number; step: number } {
  if (!(max > 0)) return { max: 1, step: options.integer ? 1 : 0.2 };
  const rough = Math.max(max / 5, options.integer ? 1 : 0);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  return { max: Math.ceil(max / step - 1e-9) * step, step };
}

/** Horizontal grid lines and value labels of a vertical-bar chart; returns the y mapping too. */
function valueAxis(maxValue: number, height: number, format: (n: number) => string, integer = false) {
  const scale = niceScale(maxValue, { integer });
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const y = (value: number) => MARGIN.top + plotHeight - (value / scale.max) * plotHeight;
  const lines: string[] = [];
  for (let tick = 0; tick <= Math.round(scale.max / scale.step); tick += 1) {
    const value = tick * scale.step;
    lines.push(
      el('path', { d: `M${MARGIN.left} ${y(value)}H${WIDTH - MARGIN.right}`, class: value === 0 ? 'axis' : 'grid' }),
      el('text', { x: MARGIN.left - 6, y: y(value) + 4, 'text-anchor': 'end', class: 'tick' }, text(format(value))),
    );
  }
  return { y, markup: el('g', { class: 'value-axis' }, ...lines) };
}

function legend(entries: ReadonlyArray<[string, string]>): string {
  const items = entries.map(([label, color], i) => {
    const x = WIDTH - MARGIN.right - (entries.length - i) * 90;
    return el(
      'g',
      {},
      el('rect', { x, y: 8, width: 12, height: 12, fill: color }),
      el('text', { x: x + 16, y: 18, class: 'legend' }, text(label)),
    );
  });
  return el('g', { class: 'legend' }, ...items);
}

/** A category or time label under the plot. */
function axisLabel(x: number, height: number, ...content: string[]): string {
  return el('text', { x, y: height - MARGIN.bottom + 18, 'text-anchor': 'middle', class: 'tick' }, ...content);
}

function bar(x: number, y: number, width: number, height: number, fill: string, tooltip: string): string {
  return el('rect', { x, y, width, height: Math.max(0, height), fill }, el('title', {}, text(tooltip)));
}

export function callsOverTimeChart(buckets: readonly CallsBucket[], bucketMs: number, since?: number, until?: number): string {
  const title = 'Calls over time (UTC)';
  if (buckets.length === 0) return emptyChart('calls-over-time', title);
  const floor = (ms: number) => Math.floor(ms / bucketMs) * bucketMs;
  let start = Math.min(since === undefined ? Infinity : floor(since), buckets[0]!.bucket);
  let end = Math.max(until === undefined ? -Infinity : floor(until - 1), buckets.at(-1)!.bucket);
  if ((end - start) / bucketMs + 1 > MAX_TIME_SLOTS) [start, end] = [buckets[0]!.bucket, buckets.at(-1)!.bucket];
  const slots = Math.round((end - start) / bucketMs) + 1;

  const height = 300;
  const axis = valueAxis(Math.max(...buckets.map((b) => b.calls)), height, formatCount, true);
  const slotWidth = (WIDTH - MARGIN.left - MARGIN.right) / slots;
  const barWidth = Math.max(1, slotWidth * 0.8);
  const slotX = (slot: number) => MARGIN.left + slot * slotWidth;
  const spansDays = end - start >= 86_400_000;

  const bars = buckets.flatMap((b) => {
    const x = slotX((b.bucket - start) / bucketMs) + (slotWidth - barWidth) / 2;
    const label = formatBucketLabel(b.bucket, spansDays, bucketMs);
    const ok = b.calls - b.failures;
    const okBar = bar(x, axis.y(ok), barWidth, axis.y(0) - axis.y(ok), COLOR.ok, `${label}: ${formatCount(ok)} succeeded`);
    const failedHeight = axis.y(ok) - axis.y(b.calls);
    const failedBar = bar(x, axis.y(b.calls), barWidth, failedHeight, COLOR.failed, `${label}: ${formatCount(b.failures)} failed`);
    return [ok > 0 ? okBar : '', b.failures > 0 ? failedBar : ''];
  });
  const every = Math.ceil(slots / 8);
  const labels: string[] = [];
  for (let slot = 0; slot < slots; slot += every) {
    const label = formatBucketLabel(start + slot * bucketMs, spansDays, bucketMs);
    labels.push(axisLabel(slotX(slot) + slotWidth / 2, height, text(label)));
  }
  return chart(
    'calls-over-time',
    title,
    height,
    axis.markup,
    el('g', { class: 'bars' }, ...bars),
    el('g', { class: 'time-axis' }, ...labels),
    legend([
      ['succeeded', COLOR.ok],
      ['failed', COLOR.failed],
    ]),
  );
}

export function latencyChart(latency: Readonly<Record<string, LatencyPercentiles>>): string {
  const title = 'Latency percentiles per source (successful attempts)';
  const sources = Object.entries(latency).sort(([a], [b]) => a.localeCompare(b));
  if (sources.length === 0) return emptyChart('latency', title);
  const height = 300;
  const axis = valueAxis(Math.max(...sources.map(([, l]) => l.p99)), height, formatMs);
  const groupWidth = (WIDTH - MARGIN.left - MARGIN.right) / sources.length;
  const barWidth = Math.min(32, (groupWidth * 0.8) / 3);
  const marks = sources.flatMap(([source, l], i) => {
    const center = MARGIN.left + (i + 0.5) * groupWidth;
    const bars = (['p50', 'p95', 'p99'] as const).map((p, j) => {
      const tooltip = `${source} ${p}: ${formatMs(l[p])} (${formatCount(l.samples)} samples)`;
      return bar(center + (j - 1.5) * barWidth, axis.y(l[p]), barWidth - 1, axis.y(0) - axis.y(l[p]), COLOR[p], tooltip);
    });
    const label = axisLabel(center, height, el('title', {}, text(source)), text(shorten(source, Math.floor(groupWidth / 7))));
    return [...bars, label];
  });
  const key = legend([
    ['p50', COLOR.p50],
    ['p95', COLOR.p95],
    ['p99', COLOR.p99],
  ]);
  return chart('latency', title, height, axis.markup, el('g', { class: 'bars' }, ...marks), key);
}

interface BarGroup {
  heading?: string;
  items: ReadonlyArray<[string, number]>;
  color: string;
}

const ROW = 24;
const LABEL_WIDTH = 200;
const VALUE_WIDTH = 96;

/**
 * One bar per item, label on the left, value on the right; groups stacked with their headings, on
 * one scale so they compare. A group without items says `none`.
 */
function horizontalBars(kind: ChartKind, title: string, groups: readonly BarGroup[], format: (n: number) => string): string {
  const max = Math.max(0, ...groups.flatMap((g) => g.items.map(([, v]) => v)));
  const barSpace = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const rows: string[] = [];
  let y = 8;
  for (const group of groups) {
    if (group.heading !== undefined) {
      rows.push(el('text', { x: 8, y: y + 16, class: 'group' }, text(group.heading)));
      y += ROW;
    }
    if (group.items.length === 0) {
      rows.push(el('text', { x: LABEL_WIDTH, y: y + 16, class: 'empty' }, 'none'));
      y += ROW;
    }
    for (const [label, value] of group.items) {
      const width = max > 0 ? Math.max(1, (value / max) * barSpace) : 1;
      rows.push(
        el('text', { x: LABEL_WIDTH - 8, y: y + 16, 'text-anchor': 'end' }, el('title', {}, text(label)), text(shorten(label, 28))),
        bar(LABEL_WIDTH, y + 4, width, ROW - 8, group.color, `${label}: ${format(value)}`),
        el('text', { x: LABEL_WIDTH + width + 6, y: y + 16, class: 'value' }, text(format(value))),
      );
      y += ROW;
    }
  }
  return chart(kind, title, y + 8, ...rows);
}

/**
 * Two series by error type: failed calls (what reached callers) and failed attempts (what the
 * retries absorbed). A run where every call succeeded in the end still shows its failed attempts.
 */
export function failuresChart(
  failedCalls: ReadonlyArray<[string, number]>,
  failedAttempts: ReadonlyArray<[string, number]>,
): string {
  const title = 'Failures by error type: failed calls and failed attempts';
  if (failedCalls.length === 0 && failedAttempts.length === 0) return emptyChart('failures', title);
  const groups = [
    { heading: 'failed calls', items: failedCalls, color: COLOR.failed },
    { heading: 'failed attempts (retried or not)', items: failedAttempts, color: COLOR.failedAttempt },
  ];
  return horizontalBars('failures', title, groups, formatCount);
}

export function costChart(bySource: ReadonlyArray<[string, number]>, byTenant: ReadonlyArray<[string, number]>): string {
  const title = 'Cost (USD) per source and per tenant';
  if (bySource.length === 0 && byTenant.length === 0) return emptyChart('cost', title);
  const groups = [
    { heading: 'per source', items: bySource, color: COLOR.cost },
    { heading: 'per tenant', items: byTenant, color: COLOR.cost },
  ].filter((g) => g.items.length > 0);
  return horizontalBars('cost', title, groups, formatUsd);
}
