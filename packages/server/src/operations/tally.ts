/**
 * The server's per-request counts, kept in plain maps and written in Prometheus' text format (as
 * prom-client writes it) when `/metrics` is read. prom-client validates and hashes the labels of
 * every update — nine per request, most of what the metrics cost a request (bench/profiles.md,
 * "The metrics counted by the server") — and has no public way to take a histogram's buckets at
 * scrape; a tally finds a label set by its values joined, and formats only when read.
 */

/** Joins a label set's values into its key. The labels' own values never hold it in practice, and only the first (a tenant) is free text. */
const SEPARATOR = '\u0000';

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (help: string): string => help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const formatNumber = (n: number): string => (Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n));

interface Series<S> {
  readonly labels: string;
  readonly values: readonly string[];
  readonly state: S;
}

abstract class Tally<S> {
  readonly #series = new Map<string, Series<S>>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    private readonly type: 'counter' | 'histogram',
  ) {}

  /** Drops every series whose label `label` is `value` (a tenant no longer named). */
  removeWhere(label: string, value: string): void {
    const index = this.labelNames.indexOf(label);
    for (const [key, series] of this.#series) if (series.values[index] === value) this.#series.delete(key);
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
    for (const series of this.#series.values()) this.linesOf(series, lines);
    return `${lines.join('\n')}\n`;
  }

  protected stateOf(values: readonly string[]): S {
    const key = values.join(SEPARATOR);
    let series = this.#series.get(key);
    if (series === undefined) {
      const labels = values.map((value, i) => `${this.labelNames[i]}="${escapeLabel(value)}"`).join(',');
      series = { labels, values, state: this.fresh() };
      this.#series.set(key, series);
    }
    return series.state;
  }

  protected abstract fresh(): S;
  protected abstract linesOf(series: Series<S>, lines: string[]): void;
}

export class CounterTally extends Tally<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, labelNames, 'counter');
  }

  /** `values` in the order of the label names. */
  inc(values: readonly string[], amount = 1): void {
    this.stateOf(values).value += amount;
  }

  protected fresh() {
    return { value: 0 };
  }

  protected linesOf({ labels, state }: Series<{ value: number }>, lines: string[]): void {
    lines.push(`${this.name}{${labels}} ${formatNumber(state.value)}`);
  }
}

interface Buckets {
  /** Observations per bucket (not cumulative), by upper bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class HistogramTally extends Tally<Buckets> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly upperBounds: readonly number[],
  ) {
    super(name, help, labelNames, 'histogram');
  }

  /** `values` in the order of the label names. */
  observe(values: readonly string[], value: number): void {
    // A latency is always finite; prom-client would throw on any other, a tally drops it.
    if (!Number.isFinite(value)) return;
    const buckets = this.stateOf(values);
    const bound = this.upperBounds.findIndex((upper) => value <= upper);
    if (bound !== -1) buckets.counts[bound]! += 1;
    buckets.sum += value;
    buckets.count += 1;
  }

  protected fresh(): Buckets {
    return { counts: this.upperBounds.map(() => 0), sum: 0, count: 0 };
  }

  protected linesOf({ labels, state }: Series<Buckets>, lines: string[]): void {
    let cumulative = 0;
    this.upperBounds.forEach((upper, i) => {
      cumulative += state.counts[i]!;
      lines.push(`${this.name}_bucket{le="${formatNumber(upper)}",${labels}} ${cumulative}`);
    });
    lines.push(`${this.name}_bucket{le="+Inf",${labels}} ${state.count}`);
    lines.push(`${this.name}_sum{${labels}} ${formatNumber(state.sum)}`);
    lines.push(`${this.name}_count{${labels}} ${state.count}`);
  }
}
