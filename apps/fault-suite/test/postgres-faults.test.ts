/** PostgreSQL stopped mid-run, on a server of this file's own: calls go on, every row is written or counted dropped, writing resumes. */
import { GatewayClient } from '@pgw/client';
import type { MockUpstream } from '@pgw/mock-upstream';
import { PgRecorder } from '@pgw/telemetry-pg';
import { startPrivatePostgres, type PrivatePostgres } from '@pgw/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Load, chatScope, ms, printFigures, recordFigure, startMock, uniqueName, until } from '../src/index.js';

let mock: MockUpstream;
let server: PrivatePostgres;

beforeAll(async () => {
  [mock, server] = await Promise.all([startMock(), startPrivatePostgres()]);
});
afterAll(async () => {
  await Promise.all([mock?.close(), server?.destroy()]);
  printFigures();
});

async function storedRows(scope: string): Promise<number> {
  const client = new pg.Client({ connectionString: server.dsn });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM public.llm_calls WHERE scope = $1', [scope]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL faults', () => {
  it('stopped mid-run: calls unaffected; rows written + rows dropped = calls; writing resumes after the restart', async () => {
    const name = 'PostgreSQL stopped mid-run';
    const scope = uniqueName('pgstop');
    const { env } = chatScope(mock, scope, { latencyMs: 5 }, {}, { MAX_ATTEMPTS: '1' });
    const warnings: string[] = [];
    const recorder = await PgRecorder.open({
      dsn: server.dsn,
      batchSize: 10,
      flushIntervalMs: 20,
      connectTimeoutMs: 1_000,
      warnIntervalMs: 1,
      warn: (m) => warnings.push(m),
    });
    const client = await GatewayClient.fromEnv(scope, { env: { ...env, PGW_CACHE_BACKEND: 'none' }, recorder, warn: () => {} });
    const load = new Load(() => client.chat([{ role: 'user', content: 'hi' }]), { workers: 4, maxCalls: 20_000 });
    let writtenAtRestart = 0;
    let outageCalls = 0;
    let outageSlowestMs = 0;
    try {
      await until('100 rows written', () => recorder.stats().written >= 100);
      await server.stop();
      const stoppedAt = performance.now();
      await until('a row dropped', () => recorder.stats().dropped > 0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const outage = load.since(stoppedAt);
      outageCalls = outage.length;
      outageSlowestMs = Math.max(...outage.map((o) => o.endedAt - o.startedAt));
      expect(outage.every((o) => o.error === undefined)).toBe(true);

      await server.start();
      writtenAtRestart = recorder.stats().written;
      await until('100 rows written after the restart', () => recorder.stats().written >= writtenAtRestart + 100);
    } finally {
      await load.stop();
      await client.close();
      await recorder.close();
    }
    const calls = load.outcomes.length;
    const stats = recorder.stats();
    expect(load.outcomes.every((o) => o.error === undefined)).toBe(true);
    expect(stats.written + stats.dropped).toBe(calls);
    expect(stats.dropped).toBeGreaterThan(0);
    expect(await storedRows(scope)).toBe(stats.written);
    expect(outageSlowestMs).toBeLessThan(5_000);
    recordFigure(
      name,
      `${calls} calls, all succeeded (${outageCalls} during the outage, slowest ${ms(outageSlowestMs)}); rows written ${stats.written} + dropped ${stats.dropped} = ${calls}; table holds ${stats.written}; writing resumed after the restart`,
    );
  });
});
