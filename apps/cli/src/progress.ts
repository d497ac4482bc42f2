/**
 * Progress of a long job on stderr: a bar redrawn in place on a terminal, plain periodic lines
 * otherwise (logs and CI keep one line per interval instead of a wall of carriage returns).
 */

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  label: string;
  total: number;
  stream?: ProgressStream;
  now?: () => number;
  /** Plain mode: at most one line per interval. Default 2 s. */
  lineIntervalMs?: number;
  /** Done before this run (a resumed job): shown in the count, left out of the rate. */
  startAt?: number;
}

const BAR_WIDTH = 24;

export class Progress {
  readonly #label: string;
  readonly #total: number;
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #lineIntervalMs: number;
  readonly #startedAt: number;
  readonly #startAt: number;
  #done: number;
  /** Appended to the bar (a batch job's failed, in flight and cost). */
  #detail = '';
  #lastLineAt: number;

  constructor(options: ProgressOptions) {
    this.#label = options.label;
    this.#total = options.total;
    this.#stream = options.stream ?? process.stderr;
    this.#now = options.now ?? Date.now;
    this.#lineIntervalMs = options.lineIntervalMs ?? 2_000;
    this.#startedAt = this.#now();
    this.#startAt = options.startAt ?? 0;
    this.#done = this.#startAt;
    this.#lastLineAt = this.#startedAt;
  }

  advance(count: number): void {
    this.set(this.#done + count, this.#detail);
  }

  /** The count done so far (not a step), with a detail shown after the bar. */
  set(done: number, detail = ''): void {
    this.#done = Math.min(this.#total, done);
    this.#detail = detail;
    if (this.#stream.isTTY) {
      this.#stream.write(`\r\u001b[2K${this.#barLine()}`);
    } else if (this.#now() - this.#lastLineAt >= this.#lineIntervalMs) {
      this.#lastLineAt = this.#now();
      this.#stream.write(`${this.#plainLine()}\n`);
    }
  }

  /** Ends the display with a summary line (also when the job stopped early). */
  finish(): void {
    const elapsed = (this.#now() - this.#startedAt) / 1000;
    const end = `${this.#label} ${this.#done}/${this.#total} in ${elapsed.toFixed(1)} s\n`;
    this.#stream.write(this.#stream.isTTY ? `\r\u001b[2K${end}` : end);
  }

  #fraction(): number {
    return this.#total === 0 ? 1 : this.#done / this.#total;
  }

  #rate(): number {
    const seconds = (this.#now() - this.#startedAt) / 1000;
    return seconds > 0 ? (this.#done - this.#startAt) / seconds : 0;
  }

  #plainLine(): string {
    return `${this.#label} ${this.#done}/${this.#total} (${Math.floor(this.#fraction() * 100)}%)`;
  }

  #barLine(): string {
    const filled = Math.round(this.#fraction() * BAR_WIDTH);
    const rate = this.#rate();
    const eta = rate > 0 ? `eta ${Math.ceil((this.#total - this.#done) / rate)} s` : '';
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
    const percent = Math.floor(this.#fraction() * 100);
    const line = `${this.#label} ${bar} ${this.#done}/${this.#total} ${percent}% ${this.#detail ? `${this.#detail} ` : ''}${rate.toFixed(1)}/s ${eta}`;
    // A pty without a size reports 0 columns.
    const columns = this.#stream.columns || 80;
    return line.slice(0, Math.max(20, columns - 1));
  }
}
