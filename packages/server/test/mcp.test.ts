/**
 * The door's `/mcp` through the official MCP SDK's client, in front of two real upstream MCP servers
 * of the tests' own — one over stdio (a child process the door supervises), one over Streamable HTTP
 * on loopback — and one that dies at start: listing, calling, a denied tool, a dead server named in
 * the list's `_meta`, a tool over its concurrency waiting then answering, a crashed stdio server
 * restarted, the metrics.
 */
import { fileURLToPath } from 'node:url';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { mcpClient, textOf } from './mcp-client.js';
import { startHttpUpstream, type HttpUpstream } from './mcp-upstream.js';

const ALL = 'sk-mcp-all-0001';
const ECHO_ONLY = 'sk-mcp-echo-002';
const NONE = 'sk-mcp-none-003';
const METRICS = 'sk-mcp-metrics-04';
const STDIO = fileURLToPath(new URL('./fixtures/mcp-stdio-server.mjs', import.meta.url));

let h: Harness;
let web: HttpUpstream;
const clients: Client[] = [];
const open = async (key: string) => {
  const client = await mcpClient(h.url, key);
  clients.push(client);
  return client;
};
const failureOf = (promise: Promise<unknown>) => promise.then(() => expect.fail('the call was served'), (error: unknown) => error);

beforeAll(async () => {
  web = await startHttpUpstream();
  const servers = {
    fs: { command: process.execPath, args: [STDIO] },
    web: { url: web.url, headers: { 'x-upstream-token': 'secret-web-token' }, tools: { hold: { maxConcurrency: 1 } } },
    dead: { command: process.execPath, args: ['-e', 'process.exit(1)'] },
  };
  h = await startHarness(undefined, {
    PGW_SERVER__KEYS: JSON.stringify({ [ALL]: { tenant: 'team-all', mcp: ['fs', 'web', 'dead'] }, [ECHO_ONLY]: { tenant: 'team-echo', mcp: ['fs__echo'] }, [NONE]: 'team-none' }),
    PGW_MCP__SERVERS: JSON.stringify(servers),
    PGW_SERVER__METRICS_KEYS: JSON.stringify([METRICS]),
    PGW_MCP__WEB__TIMEOUT_S: '30',
  });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await h.close();
  await web.close();
});

describe('tools/list', () => {
  it('lists every tool of the servers a key may use as <server>__<tool>, and names the dead server in _meta', async () => {
    const listed = await (await open(ALL)).listTools();
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['fs__count', 'fs__echo', 'fs__exit', 'web__add', 'web__double', 'web__hold']);
    expect(listed._meta).toEqual({ 'pgw/unavailable': [{ server: 'dead', reason: 'down' }] });
    expect(listed.tools.find((tool) => tool.name === 'fs__echo')?.annotations?.idempotentHint).toBe(true);
    // The HTTP server's configured headers reach it.
    expect(web.headersSeen.some((headers) => headers['x-upstream-token'] === 'secret-web-token')).toBe(true);
  });

  it('lists only the tools a key names, and none for a key that names no mcp (deny by default)', async () => {
    expect((await (await open(ECHO_ONLY)).listTools()).tools.map((tool) => tool.name)).toEqual(['fs__echo']);
    const none = await (await open(NONE)).listTools();
    expect(none.tools).toEqual([]);
    expect(none._meta).toBeUndefined();
  });

  it('refuses /mcp without a key', async () => {
    const refused = await failureOf(mcpClient(h.url));
    expect(String(refused)).toMatch(/invalid_api_key/);
  });
});

describe('tools/call', () => {
  it('forwards a call to the stdio server and to the HTTP server', async () => {
    const client = await open(ALL);
    expect(textOf(await client.callTool({ name: 'fs__echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    expect(textOf(await client.callTool({ name: 'web__add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  it('answers a tool outside the key with -32602 naming it, without forwarding it', async () => {
    const before = web.headersSeen.length;
    const denied = await failureOf((await open(ECHO_ONLY)).callTool({ name: 'web__add', arguments: { a: 1, b: 1 } }));
    expect(denied).toBeInstanceOf(McpError);
    expect((denied as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((denied as McpError).message).toMatch(/web__add/);
    const unknown = (await failureOf((await open(ALL)).callTool({ name: 'nosuch__tool' }))) as McpError;
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(web.headersSeen.length).toBe(before);
  });

  it('reports a call to the dead server as unavailable', async () => {
    const failed = (await failureOf((await open(ALL)).callTool({ name: 'dead__anything' }))) as McpError;
    expect(failed.message).toMatch(/MCP server "dead" is unavailable/);
  });

  it('holds a tool over its concurrency until the call before it ends, then serves it', async () => {
    const client = await open(ALL);
    const first = client.callTool({ name: 'web__hold' });
    await web.holdingReaches(1);
    let secondDone = false;
    const second = client.callTool({ name: 'web__hold' }).finally(() => (secondDone = true));
    // The second waits at the door: an unrelated call through the same server is served meanwhile.
    expect(textOf(await client.callTool({ name: 'web__add', arguments: { a: 1, b: 1 } }))).toBe('2');
    expect(web.holding).toBe(1);
    expect(secondDone).toBe(false);
    web.releaseOne();
    expect(textOf(await first)).toBe('released');
    await web.holdingReaches(1);
    web.releaseOne();
    expect(textOf(await second)).toBe('released');
    expect(web.maxHolding).toBe(1);
  });

  it('restarts a stdio server that died, and the next calls reach the new process', async () => {
    const client = await open(ALL);
    expect(textOf(await client.callTool({ name: 'fs__exit' }))).toBe('bye');
    let answer: string | undefined;
    // The restart comes after a 1 s backoff: tried for up to 10 s.
    for (let tries = 0; answer === undefined && tries < 100; tries += 1) {
      answer = await client.callTool({ name: 'fs__count' }).then(textOf, async () => void (await new Promise((resolve) => setTimeout(resolve, 100))));
    }
    expect(answer).toBe('1');
  });

  it('counts tool calls by server, tool and outcome in /metrics', async () => {
    const text = await (await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
    expect(text).toMatch(/pgw_mcp_tool_calls_total\{server="web",tool="add",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/pgw_mcp_tool_calls_total\{server="dead",tool="anything",outcome="failed"\} 1/);
  });
});
