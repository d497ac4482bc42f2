import type { TelemetryRecorder, TelemetryRow } from '@pgw/core';
import { describeError, type WarnOnce } from '../warn-once.js';

/**
 * Fire-and-forget recording: telemetry fails open. A recorder that throws (or rejects) degrades to one
 * warning and a dropped-row counter; the call never fails or waits because of it. The bounded queue
 * itself lives in the recorders.
 */
export class SafeRecorder {
  private dropped = 0;

  constructor(
    private readonly recorder: TelemetryRecorder | undefined,
    private readonly warnings: WarnOnce,
  ) {}

  get droppedRows(): number {
    return this.dropped;
  }

  record(row: TelemetryRow): void {
    if (!this.recorder) return;
    try {
      const returned: unknown = this.recorder.record(row);
      // The port says void; a recorder that returns a promise anyway must not leave a rejection unhandled.
      if (returned instanceof Promise) returned.catch((error: unknown) => this.drop(error));
    } catch (error) {
      this.drop(error);
    }
  }

  private drop(error: unknown): void {
    this.dropped += 1;
    this.warnings.warnOnce('telemetry.record', `telemetry recorder failed, rows are dropped: ${describeError(error)}`);
  }
}
