/** Prometheus text exposition (format 0.0.4), written by hand: counters, gauges and histograms with labels. */

type Labels = Readonly<Record<string, string>>;

const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Labels) => {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escape(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
};

interface Family {
  text(): string;
}

/** A counter or a gauge: one value per label set. */
export class Series implements Family {
  readonly #values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly kind: 'counter' | 'gauge',
  ) {}

  add(labels: Labels, amount = 1): void {
    const key = labelText(labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += amount;
    else this.#values.set(key, { labels, value: amount });
  }

  set(labels: Labels, value: number): void {
    this.#values.set(labelText(labels), { labels, value });
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.kind}`];
    for (const [key, { value }] of this.#values) lines.push(`${this.name}${key} ${value}`);
    return lines.join('\n');
  }
}

/** Cumulative buckets (upper bounds in the metric's unit), a sum and a count per label set. */
export class Histogram implements Family {
  readonly #values = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = labelText(labels);
    let entry = this.#values.get(key);
    if (!entry) this.#values.set(key, (entry = { labels, counts: this.bounds.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) entry.counts[i]!++;
    entry.sum += value;
    entry.count++;
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#values.values()) {
      this.bounds.forEach((bound, i) => lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${counts[i]}`));
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`, `${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

export function exposition(families: readonly Family[]): string {
  return `${families.map((family) => family.text()).join('\n')}\n`;
}
