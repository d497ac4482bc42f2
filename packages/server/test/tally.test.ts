/** The tallies write what prom-client writes for the same updates: the scrape cannot tell them apart. */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterTally, HistogramTally } from '../src/operations/tally.js';

const BOUNDS = [0.005, 0.1, 1, 30];
// Label values a tenant may carry: quotes, backslashes, a newline, non-ASCII.
const TENANTS = ['acme', 'a"b', 'back\\slash', 'new\nline', 'ünï'];

describe('CounterTally and HistogramTally', () => {
  it('write the exposition text prom-client writes for the same updates, escapes included', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'c_total', help: 'Counts, with a \\ and a\nnewline.', labelNames: ['tenant', 'outcome'], registers: [registry] });
    const histogram = new Histogram({ name: 'h_seconds', help: 'Waits.', labelNames: ['tenant', 'priority'], buckets: BOUNDS, registers: [registry] });
    const counts = new CounterTally('c_total', 'Counts, with a \\ and a\nnewline.', ['tenant', 'outcome']);
    const waits = new HistogramTally('h_seconds', 'Waits.', ['tenant', 'priority'], BOUNDS);
    for (let i = 0; i < 500; i += 1) {
      const tenant = TENANTS[i % TENANTS.length]!;
      const outcome = i % 3 === 0 ? 'ok' : 'failed';
      const amount = (i % 7) / 10;
      counter.inc({ tenant, outcome }, amount);
      counts.inc([tenant, outcome], amount);
      const seconds = [0, 0.005, 0.05, 0.1, 0.7, 1, 29.9, 30, 45][i % 9]!;
      const priority = i % 2 === 0 ? 'interactive' : 'batch';
      histogram.observe({ tenant, priority }, seconds);
      waits.observe([tenant, priority], seconds);
    }
    expect([counts.text(), waits.text()].join('\n')).toBe(await registry.metrics());
  });

  it('drops the series of a label value, and writes the header alone when no series is left', () => {
    const counts = new CounterTally('c_total', 'Counts.', ['tenant', 'outcome']);
    counts.inc(['acme', 'ok']);
    counts.inc(['acme', 'failed'], 2);
    counts.inc(['other', 'ok']);
    counts.removeWhere('tenant', 'acme');
    expect(counts.text()).toBe('# HELP c_total Counts.\n# TYPE c_total counter\nc_total{tenant="other",outcome="ok"} 1\n');
    counts.removeWhere('tenant', 'other');
    expect(counts.text()).toBe('# HELP c_total Counts.\n# TYPE c_total counter\n');
  });
});
