/**
 * Two door servers of a fleet on one Redis (REDIS_URL) in front of one HTTP MCP server: a tool's
 * concurrency of 2 holds exactly across both — never 3 at once — and every call is served in the end,
 * each leaving its audit row in the fleet's PostgreSQL telemetry. The server's name is fresh per run,
 * so its books on the shared Redis and its rows in the shared table are this run's alone.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { mcpClient, textOf } from './mcp-client.js';
import { startHttpUpstream, type HttpUpstream } from './mcp-upstream.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const PG_DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEY = 'sk-fleet-mcp-001';
const server = `fleet_${randomBytes(4).toString('hex')}`;

let web: HttpUpstream;
let doors: Harness[] = [];
let clients: Client[] = [];
beforeAll(async () => {
  web = await startHttpUpstream();
  const env = {
    PGW_LIMITER_BACKEND: 'redis',
    PGW_BREAKER_BACKEND: 'redis',
    REDIS_URL,
    PGW_TELEMETRY_BACKEND: 'postgres',
    PGW_TELEMETRY_DSN: PG_DSN,
    PGW_SERVER__KEYS: JSON.stringify({ [KEY]: { tenant: 'fleet', mcp: [server] } }),
    PGW_MCP__SERVERS: JSON.stringify({ [server]: { url: web.url, tools: { hold: { maxConcurrency: 2 } } } }),
  };
  doors = [await startHarness(undefined, env), await startHarness(undefined, env)];
  clients = await Promise.all(doors.map((door) => mcpClient(door.url, KEY)));
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await Promise.allSettled(doors.map((door) => door.close()));
  await web.close();
  const db = new pg.Client({ connectionString: PG_DSN });
  await db.connect();
  await db.query('DELETE FROM llm_calls WHERE source = $1', [server]).finally(() => db.end());
});

it('holds one tool to its concurrency exactly across two servers of a fleet, and serves every call', async () => {
  const calls = [0, 1, 2, 3, 4, 5].map((index) => clients[index % 2]!.callTool({ name: `${server}__hold` }));
  // All six arrived: two in flight upstream, four waiting at the doors (the fleet's count on Redis says two).
  await web.holdingReaches(2);
  await until(async () => (await waitingAtDoors()) === 4);
  expect(web.holding).toBe(2);
  const status = (await doors[0]!.server.mcpStatus())![0]!;
  expect(status).toMatchObject({ server, inflight: 2, breaker: 'closed', health: 'up' });
  for (let released = 0; released < 6; released += 1) {
    await web.holdingReaches(Math.min(2, 6 - released));
    expect(web.holding).toBeLessThanOrEqual(2);
    web.releaseOne();
  }
  expect((await Promise.all(calls)).map(textOf)).toEqual(Array(6).fill('released'));
  expect(web.maxHolding).toBe(2);
});

it('leaves one audit row per tool call in the fleet\'s PostgreSQL, without the arguments', async () => {
  // The drain flushes each door's telemetry.
  await Promise.all(doors.map((door) => door.close()));
  const db = new pg.Client({ connectionString: PG_DSN });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT operation, scope, model, tenant_id, status, attempts, meta, request_text FROM llm_calls WHERE source = $1', [server]);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row).toMatchObject({ operation: 'mcp', scope: 'PGW_MCP', model: 'hold', tenant_id: 'fleet', status: 'ok', attempts: 1, request_text: null });
      expect(row.meta).toMatchObject({ server, tool: 'hold', outcome: 'ok', requestId: expect.any(String) });
    }
  } finally {
    await db.end();
  }
});

async function waitingAtDoors(): Promise<number> {
  const statuses = await Promise.all(doors.map((door) => door.server.mcpStatus()));
  return statuses.reduce((sum, status) => sum + (status?.[0]?.waitingHere ?? 0), 0);
}

/** Polls `condition` every 20 ms for up to 10 s (the calls reach the doors in well under one). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 500; tries += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect.fail('the condition did not hold within 10 s');
}
