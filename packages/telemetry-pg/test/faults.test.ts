import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { telemetryRow } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { DSN, countRows, readRows, uniqueName, useRecorders, useTestDatabase } from './support.js';

const db = useTestDatabase();
const { openRecorder } = useRecorders(db);

/** A TCP server that accepts connections and never says a word. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('PgRecorder when Postgres is unreachable', () => {
  it('keeps record() immediate, counts drops, warns rate-limited, and closes', async () => {
    let now = 0;
    const warnings: string[] = [];
    const recorder = await openRecorder({
      dsn: 'postgres://postgres@127.0.0.1:1/test',
      batchSize: 10,
      warnIntervalMs: 1_000,
      now: () => now,
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot prepare .*ECONNREFUSED/);
    for (let i = 0; i < 25; i += 1) recorder.record(telemetryRow());
    expect(recorder.stats().written).toBe(0);
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 25, queued: 0 });
    expect(warnings).toHaveLength(1);
    now = 1_000;
    recorder.record(telemetryRow());
    await recorder.flush();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('dropped 26 telemetry row(s) since the last warning (26 in total)');
    recorder.record(telemetryRow());
    await recorder.close();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 27, queued: 0 });
  });

  it('bounds a connection that never answers by connectTimeoutMs', async () => {
    const server = await silentServer();
    try {
      const warnings: string[] = [];
      const recorder = await openRecorder({
        dsn: `postgres://postgres@127.0.0.1:${server.port}/test`,
        connectTimeoutMs: 200,
        warn: (m) => warnings.push(m),
      });
      expect(warnings[0]).toMatch(/cannot prepare .*timeout/i);
      recorder.record(telemetryRow());
      await recorder.close();
      expect(recorder.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
    } finally {
      await server.close();
    }
  });
});

describe('PgRecorder when Postgres is slow', () => {
  it('drops a batch the statement timeout cancels, then writes again', async () => {
    const table = uniqueName('calls');
    const warnings: string[] = [];
    const recorder = await openRecorder({ table, statementTimeoutMs: 300, warn: (m) => warnings.push(m) });
    const locker = new pg.Client({ connectionString: DSN });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${db.schema}.${table} IN ACCESS EXCLUSIVE MODE`);
      for (let i = 0; i < 5; i += 1) recorder.record(telemetryRow());
      await recorder.flush();
      expect(recorder.stats()).toEqual({ written: 0, dropped: 5, queued: 0 });
      expect(warnings[0]).toContain('canceling statement due to statement timeout');
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    const later = telemetryRow();
    recorder.record(later);
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 1, dropped: 5, queued: 0 });
    expect((await readRows(db.client, db.schema, table)).map((r) => r.callId)).toEqual([later.callId]);
  });
});

describe('PgRecorder when its connections are killed mid-run', () => {
  it('loses at most the rows in flight, then writing resumes', async () => {
    const table = uniqueName('calls');
    const applicationName = uniqueName('pgw_kill');
    const warnings: string[] = [];
    const recorder = await openRecorder({ table, applicationName, batchSize: 20, flushIntervalMs: 10, warn: (m) => warnings.push(m) });
    let produced = 0;
    let producing = true;
    const producer = (async () => {
      while (producing) {
        for (let i = 0; i < 5; i += 1) recorder.record(telemetryRow());
        produced += 5;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    try {
      while (recorder.stats().written < 100) await new Promise((resolve) => setTimeout(resolve, 5));
      const killed = await db.client.query(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      expect(killed.rows.length).toBeGreaterThan(0);
      const writtenAtKill = recorder.stats().written;
      while (recorder.stats().written < writtenAtKill + 100) await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      producing = false;
      await producer;
    }
    const late = telemetryRow();
    recorder.record(late);
    await recorder.flush();
    const stats = recorder.stats();
    expect(stats.written + stats.dropped).toBe(produced + 1);
    const stored = await readRows(db.client, db.schema, table);
    expect(stored.length).toBe(stats.written);
    expect(stored.some((r) => r.callId === late.callId)).toBe(true);
    expect(await countRows(db.client, db.schema, table)).toBe(stats.written);
  });
});
