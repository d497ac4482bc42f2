/** SQLite telemetry that cannot be written: an unwritable path, and a full file. Calls never notice. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayClient } from '@pgw/client';
import type { MockUpstream } from '@pgw/mock-upstream';
import { SqliteRecorder } from '@pgw/telemetry-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatScope, ms, printFigures, recordFigure, startMock, uniqueName } from '../src/index.js';

const HI = [{ role: 'user' as const, content: 'hi' }];
let mock: MockUpstream;
const dir = mkdtempSync(join(tmpdir(), 'pgw-fault-sqlite-'));

beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
  printFigures();
});

async function timedCalls(client: GatewayClient, count: number): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await client.chat(HI, { cacheBypass: true });
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}

describe('SQLite faults', () => {
  it('an unwritable path: the client starts, calls succeed, one warning names the path; rows are written once it is usable', async () => {
    const name = 'SQLite unwritable';
    const scope = uniqueName('sqlro');
    const { env } = chatScope(mock, scope, {});
    // A path under a regular file cannot be created, whoever runs the test (root included).
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'not a directory');
    const path = join(blocker, 'telemetry.sqlite');
    const warnings: string[] = [];
    const viaEnv = await GatewayClient.fromEnv(scope, {
      env: { ...env, PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: path },
      warn: (m) => warnings.push(m),
    });
    await viaEnv.chat(HI);
    await viaEnv.close();
    expect(warnings.filter((m) => m.includes(`cannot open ${path}`))).toHaveLength(1);

    const recorder = await SqliteRecorder.open({ path, batchSize: 5, warn: () => {} });
    const client = await GatewayClient.fromEnv(scope, { env, recorder, warn: () => {} });
    const slowest = await timedCalls(client, 20);
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 20, queued: 0 });
    rmSync(blocker);
    mkdirSync(blocker);
    await timedCalls(client, 10);
    await client.close();
    await recorder.close();
    expect(recorder.stats()).toEqual({ written: 10, dropped: 20, queued: 0 });
    recordFigure(name, `client started, every call succeeded (slowest ${ms(slowest)}), one warning naming the path; 20 rows dropped and counted; the 10 rows after the path became usable were written`);
  });

  it('a full file: calls succeed, rows that do not fit are dropped and counted, the warning says full', async () => {
    const name = 'SQLite full';
    const scope = uniqueName('sqlfull');
    const { env } = chatScope(mock, scope, { content: 'y'.repeat(500) });
    const warnings: string[] = [];
    const recorder = await SqliteRecorder.open({
      path: join(dir, 'full.sqlite'),
      maxBytes: 96 * 1024,
      rotateBytes: 0,
      batchSize: 10,
      warn: (m) => warnings.push(m),
    });
    const client = await GatewayClient.fromEnv(scope, { env, recorder, warn: () => {} });
    const calls = 300;
    const slowest = await timedCalls(client, calls);
    await client.close();
    await recorder.close();
    const stats = recorder.stats();
    expect(stats.written).toBeGreaterThan(0);
    expect(stats.dropped).toBeGreaterThan(0);
    expect(stats.written + stats.dropped).toBe(calls);
    expect(warnings.join('\n')).toMatch(/database or disk is full/);
    recordFigure(name, `${calls} calls, all succeeded (slowest ${ms(slowest)}); ${stats.written} rows fit the 96 KiB cap, ${stats.dropped} dropped and counted; warning "database or disk is full"`);
  });
});
