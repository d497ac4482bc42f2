/**
 * The door's MCP governance when things go wrong, through the official SDK's client against real
 * upstream servers: a failed call retried only for a tool marked idempotent, a server's breaker
 * opening after its failures (its calls then refused at once, never sent, and the server named in
 * tools/list's _meta), a call past its server's deadline, a tenant's concurrency holding one tenant
 * while another goes on (and a tenant of PGW_MCP__TENANTS with a bound of its own), and resources and
 * prompts refused as not served.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { mcpClient, sessionRequest, textOf } from './mcp-client.js';
import { startHttpUpstream, type HttpUpstream } from './mcp-upstream.js';

const TEAM_A = 'sk-mcp-faults-a01';
const TEAM_B = 'sk-mcp-faults-b02';
const TEAM_C = 'sk-mcp-faults-c03';

let h: Harness;
const web: Record<'retry' | 'once' | 'slow' | 'shared', HttpUpstream> = {} as never;
const clients: Client[] = [];
const open = async (key = TEAM_A) => {
  const client = await mcpClient(h.url, key);
  clients.push(client);
  return client;
};
const failureOf = (promise: Promise<unknown>) => promise.then(() => expect.fail('the call was served'), (error: unknown) => error as McpError);

beforeAll(async () => {
  for (const name of ['retry', 'once', 'slow', 'shared'] as const) web[name] = await startHttpUpstream();
  const servers = {
    retry: { url: web.retry.url, idempotent: ['add'] },
    once: { url: web.once.url },
    slow: { url: web.slow.url },
    shared: { url: web.shared.url },
  };
  const all = ['retry', 'once', 'slow', 'shared'];
  h = await startHarness(undefined, {
    PGW_SERVER__KEYS: JSON.stringify({ [TEAM_A]: { tenant: 'team-a', mcp: all }, [TEAM_B]: { tenant: 'team-b', mcp: all }, [TEAM_C]: { tenant: 'team-c', mcp: all } }),
    PGW_MCP__SERVERS: JSON.stringify(servers),
    PGW_MCP__BREAKER__FAILURE_THRESHOLD: '2',
    PGW_MCP__SLOW__TIMEOUT_S: '0.5',
    PGW_MCP__TENANT__MAX_CONCURRENCY: '1',
    PGW_MCP__TENANTS: JSON.stringify({ 'team-c': { maxConcurrency: 2 } }),
  });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await h.close();
  await Promise.allSettled(Object.values(web).map((upstream) => upstream.close()));
});

describe('a failed call', () => {
  it('is tried again when its tool is marked idempotent, and answered', async () => {
    web.retry.cutCalls(1);
    expect(textOf(await (await open()).callTool({ name: 'retry__add', arguments: { a: 1, b: 2 } }))).toBe('3');
    expect(web.retry.callsSeen).toEqual(['add', 'add']);
  });

  it('is tried again when its server marks the tool idempotent (annotations.idempotentHint)', async () => {
    web.once.cutCalls(1);
    expect(textOf(await (await open()).callTool({ name: 'once__double', arguments: { n: 21 } }))).toBe('42');
    expect(web.once.callsSeen).toEqual(['double', 'double']);
    web.once.callsSeen.length = 0;
  });

  it('is tried once when its tool is not, and fails', async () => {
    web.once.cutCalls(1);
    await failureOf((await open()).callTool({ name: 'once__add', arguments: { a: 1, b: 2 } }));
    expect(web.once.callsSeen).toEqual(['add']);
  });

  it("opens its server's breaker after the threshold: the next call is refused unsent, and the list names the server", async () => {
    const client = await open();
    web.once.cutCalls(5);
    await failureOf(client.callTool({ name: 'once__add', arguments: { a: 1, b: 1 } }));
    const seen = web.once.callsSeen.length;
    const refused = await failureOf(client.callTool({ name: 'once__add', arguments: { a: 1, b: 1 } }));
    expect(refused.message).toMatch(/MCP server "once" is unavailable/);
    expect(web.once.callsSeen.length).toBe(seen);
    const listed = await client.listTools();
    expect(listed._meta?.['pgw/unavailable']).toEqual([{ server: 'once', reason: 'circuit_open' }]);
    expect(listed.tools.map((tool) => tool.name)).toContain('retry__add');
    expect((await h.server.mcpStatus())!.find((status) => status.server === 'once')).toMatchObject({ breaker: 'open' });
  });
});

describe('limits', () => {
  it("ends a call past its server's deadline", async () => {
    const client = await open();
    const failed = await failureOf(client.callTool({ name: 'slow__hold' }));
    expect(failed.message).toMatch(/slow/);
    expect(failed.message).toMatch(/0\.5 s|500 ms|timed out|deadline/i);
    web.slow.releaseOne();
  });

  it("holds a tenant's second call at its concurrency while another tenant's call goes on", async () => {
    const [a, b] = [await open(TEAM_A), await open(TEAM_B)];
    const first = a.callTool({ name: 'shared__hold' });
    await web.shared.holdingReaches(1);
    let secondDone = false;
    const second = a.callTool({ name: 'shared__hold' }).finally(() => (secondDone = true));
    expect(textOf(await b.callTool({ name: 'shared__add', arguments: { a: 2, b: 2 } }))).toBe('4');
    expect(secondDone).toBe(false);
    expect(web.shared.holding).toBe(1);
    web.shared.releaseOne();
    expect(textOf(await first)).toBe('released');
    await web.shared.holdingReaches(1);
    web.shared.releaseOne();
    expect(textOf(await second)).toBe('released');
    expect(web.shared.maxHolding).toBe(1);
  });

  it('lets a tenant named in PGW_MCP__TENANTS have its own bound', async () => {
    const client = await open(TEAM_C);
    const calls = [client.callTool({ name: 'shared__hold' }), client.callTool({ name: 'shared__hold' })];
    await web.shared.holdingReaches(2);
    web.shared.releaseOne();
    web.shared.releaseOne();
    expect((await Promise.all(calls)).map(textOf)).toEqual(['released', 'released']);
  });
});

describe('what is not served', () => {
  it('refuses resources and prompts as methods not found, and does not announce them', async () => {
    const client = await open();
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    // The SDK's client checks the capability first; asked anyway, the door answers -32601.
    const raw = async (method: string) => (await sessionRequest(h.url, TEAM_A, (client.transport as { sessionId?: string }).sessionId!, method)).text();
    for (const method of ['resources/list', 'resources/read', 'prompts/list', 'prompts/get']) expect(await raw(method)).toMatch(new RegExp(`"code":${ErrorCode.MethodNotFound}`));
  });
});
