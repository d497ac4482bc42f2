import { describe, expect, it } from 'vitest';
import type { TelemetryRow } from '../src/index.js';
import { QueuedRecorder, type QueuedRecorderOptions } from '../src/queued-recorder.js';

/** A store kept in memory: encodes a row to its call id, records every step it is asked to take. */
class StepStore extends QueuedRecorder<string> {
  readonly steps: string[] = [];
  failWrites = false;

  constructor(options: Partial<QueuedRecorderOptions> = {}) {
    super({ label: 'step-store', warn: () => {}, ...options });
  }

  protected encode(row: TelemetryRow): string {
    if (row.callId === 'unencodable') throw new TypeError('cannot encode');
    return row.callId;
  }

  protected async write(batch: string[]): Promise<void> {
    if (this.failWrites) throw new Error('store down');
    this.steps.push(`write ${batch.join(',')}`);
  }

  protected release(): void {
    this.steps.push('release');
  }
}

function row(callId: string): TelemetryRow {
  return { ts: 1, scope: 'LLM', operation: 'chat', eventKind: 'attempt', callId, logicalCallId: callId, status: 'ok' };
}

describe('QueuedRecorder', () => {
  it('writes what it recorded on flush and counts it', async () => {
    const store = new StepStore();
    store.record(row('a'));
    store.record(row('b'));
    expect(store.stats()).toEqual({ written: 0, dropped: 0, queued: 2 });
    await store.flush();
    expect(store.steps).toEqual(['write a,b']);
    expect(store.stats()).toEqual({ written: 2, dropped: 0, queued: 0 });
    await store.close();
  });

  it('drops and counts a row it cannot encode, without throwing and without losing its neighbours', async () => {
    const store = new StepStore();
    store.record(row('a'));
    expect(() => store.record(row('unencodable'))).not.toThrow();
    store.record(row('c'));
    await store.flush();
    expect(store.steps).toEqual(['write a,c']);
    expect(store.stats()).toEqual({ written: 2, dropped: 1, queued: 0 });
    await store.close();
  });

  it('drops and counts a batch whose write fails', async () => {
    const store = new StepStore();
    store.failWrites = true;
    store.record(row('a'));
    await store.flush();
    expect(store.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
    await store.close();
  });

  it('close flushes, then releases the store once, however often it is called', async () => {
    const store = new StepStore();
    store.record(row('a'));
    const first = store.close();
    expect(store.close()).toBe(first);
    await first;
    await store.close();
    expect(store.steps).toEqual(['write a', 'release']);
    store.record(row('late'));
    expect(store.stats()).toEqual({ written: 1, dropped: 1, queued: 0 });
  });

  it('rejects bad queue options naming the option', () => {
    expect(() => new StepStore({ batchSize: 0 })).toThrow(/batchSize/);
  });
});
