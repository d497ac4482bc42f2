import { join } from 'node:path';
import { recorderContract, summaryContract } from '@pgw/testkit';
import { SqliteRecorder, summarize } from '../src/index.js';
import { readRows, tempDir } from './support.js';

for (const thread of ['worker', 'main'] as const) {
  recorderContract(`SqliteRecorder (thread: ${thread})`, async () => {
    const { dir, remove } = tempDir();
    const path = join(dir, 'telemetry.sqlite');
    const open: SqliteRecorder[] = [];
    const openRecorder = async () => {
      const recorder = await SqliteRecorder.open({ path, thread, batchSize: 100, flushIntervalMs: 50 });
      open.push(recorder);
      return recorder;
    };
    return {
      recorder: await openRecorder(),
      readRows: async () => readRows(path),
      reopen: openRecorder,
      cleanup: async () => {
        await Promise.all(open.map((r) => r.close()));
        remove();
      },
    };
  });
}

summaryContract('SqliteRecorder summarize', async () => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'telemetry.sqlite');
  const recorder = await SqliteRecorder.open({ path });
  return {
    recorder,
    summarize: (range) => summarize({ path }, range),
    cleanup: async () => {
      await recorder.close();
      remove();
    },
  };
});
