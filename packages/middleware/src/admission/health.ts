/** Recent health of each source, as exponentially weighted moving averages (process-local). */
export class HealthBook {
  private readonly success = new Map<string, number>();
  private readonly latency = new Map<string, number>();
  private readonly watchers: Array<(source: string) => void> = [];

  constructor(private readonly alpha = 0.2) {}

  /** Told the source's name after each change, so a ranking re-positions that one source instead of re-scoring all. */
  watch(watcher: (source: string) => void): void {
    this.watchers.push(watcher);
  }

  onSuccess(source: string, latencyMs: number): void {
    this.success.set(source, this.blend(this.success.get(source) ?? 1, 1));
    const previous = this.latency.get(source);
    this.latency.set(source, previous === undefined ? latencyMs : this.blend(previous, latencyMs));
    this.changed(source);
  }

  onFailure(source: string): void {
    this.success.set(source, this.blend(this.success.get(source) ?? 1, 0));
    this.changed(source);
  }

  /** Success EWMA in [0, 1]; an unseen source starts healthy. */
  successRate(source: string): number {
    return this.success.get(source) ?? 1;
  }

  /** Latency EWMA in ms; undefined until the first success. */
  latencyMs(source: string): number | undefined {
    return this.latency.get(source);
  }

  private changed(source: string): void {
    for (const watcher of this.watchers) watcher(source);
  }

  private blend(previous: number, sample: number): number {
    return previous + this.alpha * (sample - previous);
  }
}
