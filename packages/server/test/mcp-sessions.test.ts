/**
 * The door's MCP sessions over time, on a clock the test moves: a session whose client went away
 * without its DELETE (no request, no stream open) ends after PGW_MCP__SESSION_IDLE_S, while one whose
 * client holds its stream open lives on; at PGW_MCP__MAX_SESSIONS a new session ends the longest idle,
 * and is refused (503) only when every session is busy.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { mcpClient, sessionRequest, textOf } from './mcp-client.js';

const KEY = 'sk-mcp-sessions-01';
const STDIO = fileURLToPath(new URL('./fixtures/mcp-stdio-server.mjs', import.meta.url));

let h: Harness | undefined;
const clients: Client[] = [];
let clock = 1_000_000;
/** The door's access log: a GET stream's line is written when its socket closes. */
const access: string[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await h?.close();
  h = undefined;
  access.length = 0;
});

async function start(env: Record<string, string>): Promise<Harness> {
  h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: { tenant: 'team', mcp: ['fs'] } }), PGW_MCP__SERVERS: JSON.stringify({ fs: { command: process.execPath, args: [STDIO] } }), ...env }, [], { now: () => clock, log: (line) => void access.push(line) });
  return h;
}

async function open(): Promise<{ client: Client; id: string }> {
  const client = await mcpClient(h!.url, KEY);
  clients.push(client);
  // The client's GET stream is open once a call has gone both ways.
  expect(textOf(await client.callTool({ name: 'fs__echo', arguments: { text: 'up' } }))).toBe('echo: up');
  return { client, id: (client.transport as StreamableHTTPClientTransport).sessionId! };
}

/** A request of the session `id` (a tools/list), answered with this status. */
async function statusOf(id: string): Promise<number> {
  const response = await sessionRequest(h!.url, KEY, id, 'tools/list');
  await response.body?.cancel();
  return response.status;
}

/** Closes a client's transport as a client that goes away does: its stream ends, no DELETE is sent. */
async function leave(client: Client): Promise<void> {
  const closed = streamsClosed() + 1;
  await client.close();
  clients.splice(clients.indexOf(client), 1);
  // The door has seen the stream end once its access line is written (on the socket's close).
  for (let tries = 0; streamsClosed() < closed && tries < 250; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(streamsClosed()).toBe(closed);
}

const streamsClosed = () => access.filter((line) => line.includes('"method":"GET"') && line.includes('"route":"/mcp"')).length;

describe('an idle session', () => {
  it('ends once nothing of it was open for the idle time; a session with its stream open lives on', async () => {
    await start({ PGW_MCP__SESSION_IDLE_S: '60' });
    const gone = await open();
    const staying = await open();
    await leave(gone.client);
    clock += 59_000;
    expect(await statusOf(gone.id)).toBe(200);
    clock += 61_000;
    expect(await statusOf(gone.id)).toBe(404);
    expect(textOf(await staying.client.callTool({ name: 'fs__echo', arguments: { text: 'still here' } }))).toBe('echo: still here');
  });
});

describe('the most sessions', () => {
  it('refuses a new one while every session is busy, and otherwise ends the longest idle for it', async () => {
    await start({ PGW_MCP__MAX_SESSIONS: '2' });
    const older = await open();
    const newer = await open();
    expect(String(await refusal())).toMatch(/503|Too many MCP sessions/);
    await leave(older.client);
    clock += 1_000;
    await leave(newer.client);
    const third = await open();
    expect(await statusOf(older.id)).toBe(404);
    expect(await statusOf(newer.id)).toBe(200);
    const fourth = await open();
    expect(await statusOf(newer.id)).toBe(404);
    expect(String(await refusal())).toMatch(/503|Too many MCP sessions/);
    expect(textOf(await third.client.callTool({ name: 'fs__echo', arguments: { text: 'a' } }))).toBe('echo: a');
    expect(textOf(await fourth.client.callTool({ name: 'fs__echo', arguments: { text: 'b' } }))).toBe('echo: b');
  });
});

const refusal = () => mcpClient(h!.url, KEY).then(() => expect.fail('a session was opened past the bound'), (error: unknown) => error);
