/**
 * A tool over its RPM through the door: the second call of a minute is not refused — it waits at the
 * door (the console's count says so) and is served once the first call's minute has passed. This
 * test waits out a real RPM window (about 60 s; given 110 s). The server has no keys: every tool is open.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { mcpClient, textOf } from './mcp-client.js';
import { startHttpUpstream, type HttpUpstream } from './mcp-upstream.js';

let h: Harness;
let web: HttpUpstream;
let client: Client;
beforeAll(async () => {
  web = await startHttpUpstream();
  h = await startHarness(undefined, { PGW_MCP__SERVERS: JSON.stringify({ web: { url: web.url, tools: { add: { rpm: 1 } } } }), PGW_MCP__WEB__TIMEOUT_S: '110' });
  client = await mcpClient(h.url);
});
afterAll(async () => {
  await client?.close();
  await h?.close();
  await web?.close();
});

it('holds a call over its tool\'s RPM until the minute passed, then serves it', async () => {
  expect(textOf(await client.callTool({ name: 'web__add', arguments: { a: 1, b: 2 } }))).toBe('3');
  const second = client.callTool({ name: 'web__add', arguments: { a: 2, b: 2 } }, undefined, { timeout: 115_000 });
  for (let tries = 0; ((await h.server.mcpStatus())?.[0]?.waitingHere ?? 0) === 0 && tries < 500; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect((await h.server.mcpStatus())![0]).toMatchObject({ server: 'web', waitingHere: 1 });
  expect(textOf(await second)).toBe('4');
}, 120_000);
