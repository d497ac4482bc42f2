import { recorderContract, summaryContract } from '@pgw/testkit';
import { PgRecorder, summarize } from '../src/index.js';
import { DSN, readRows, uniqueName, useTestDatabase } from './support.js';

const db = useTestDatabase();

recorderContract('PgRecorder', async () => {
  const table = uniqueName('calls');
  const open: PgRecorder[] = [];
  const openRecorder = async () => {
    const recorder = await PgRecorder.open({ dsn: DSN, schema: db.schema, table, batchSize: 100, flushIntervalMs: 50 });
    open.push(recorder);
    return recorder;
  };
  return {
    recorder: await openRecorder(),
    readRows: () => readRows(db.client, db.schema, table),
    reopen: openRecorder,
    cleanup: async () => {
      await Promise.all(open.map((r) => r.close()));
    },
  };
});

summaryContract('PgRecorder summarize', async () => {
  const table = uniqueName('calls');
  const recorder = await PgRecorder.open({ dsn: DSN, schema: db.schema, table });
  return {
    recorder,
    summarize: (range) => summarize({ dsn: DSN, schema: db.schema, table }, range),
    cleanup: () => recorder.close(),
  };
});
