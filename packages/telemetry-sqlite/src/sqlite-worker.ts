/**
 * The writer thread's entry (started by `WriterThread`): serves open / write / close requests one at
 * a time, in order, with a `SqliteWriter` of its own. Never imported by the recorder's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteWriter, type SqliteWriterConfig } from './sqlite-writer.js';
import type { WriterReply, WriterRequest } from './writer-protocol.js';

const port = parentPort!;
let at = 0;
let warnings: string[] = [];
const writer = new SqliteWriter(
  workerData as SqliteWriterConfig,
  () => at,
  (message) => warnings.push(message),
);

port.on('message', (request: WriterRequest) => {
  at = request.at;
  warnings = [];
  const reply: WriterReply = { id: request.id, warnings };
  try {
    if (request.kind === 'open') writer.open();
    else if (request.kind === 'write') writer.write(request.rows);
    else writer.close();
  } catch (error) {
    reply.error = error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
  }
  port.postMessage(reply);
  // With the port closed nothing is left to keep the thread alive: it exits.
  if (request.kind === 'close') port.close();
});
