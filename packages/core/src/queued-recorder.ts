/**
 * The TelemetryRecorder half every queued store shares (docs/architecture.md#telemetry): encode, queue, flush, count, and
 * close the queue before the store. A store subclass supplies only how a row is encoded and
 * written and what it frees on close.
 */
import type { TelemetryRecorder, TelemetryRecorderStats } from './ports.js';
import type { TelemetryRow } from './telemetry.js';
import { BatchingQueue, type PartialWrite, type RecorderQueueOptions } from './telemetry-queue.js';

export interface QueuedRecorderOptions extends RecorderQueueOptions {
  /** Names the store in warnings, e.g. `@pgw/telemetry-sqlite (/var/pgw/telemetry.sqlite)`. */
  label: string;
}

export abstract class QueuedRecorder<T> implements TelemetryRecorder {
  protected readonly queue: BatchingQueue<T>;
  private closing: Promise<void> | undefined;

  /** Bad queue options throw a RangeError naming the option. */
  protected constructor(options: QueuedRecorderOptions) {
    this.queue = new BatchingQueue<T>({ ...options, write: async (batch) => this.write(batch) });
  }

  /** The row as the store binds it; a throw drops (and counts) that row alone. */
  protected abstract encode(row: TelemetryRow): T;

  /** Persists one batch; a throw or rejection drops (and counts) the batch, a PartialWrite the rows it refused. */
  protected abstract write(batch: T[]): Promise<PartialWrite | void> | PartialWrite | void;

  /** Frees the store once the queue has closed (nothing is written after it). */
  protected abstract release(): Promise<void> | void;

  /** Never throws, never waits. */
  record(row: TelemetryRow): void {
    try {
      this.queue.push(this.encode(row));
    } catch (error) {
      this.queue.discard(error);
    }
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  stats(): TelemetryRecorderStats {
    return this.queue.stats();
  }

  /** Flushes within the queue's bound, then releases the store; later calls return the same promise. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue.close();
      await this.release();
    })();
    return this.closing;
  }
}
