/**
 * An MCP server over Streamable HTTP on a loopback port for the tests (the SDK's McpServer, one per
 * session): `add`, `double` (marked idempotent by its server), and `hold`, which stays in flight until the test releases it — so a test sees how
 * many calls the door lets through at once, pinned by events rather than by time.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface HttpUpstream {
  url: string;
  /** Calls of `hold` in flight now, and the most there ever were. */
  readonly holding: number;
  readonly maxHolding: number;
  /** Resolves once `count` calls of `hold` are in flight. */
  holdingReaches(count: number): Promise<void>;
  /** Lets the oldest held call answer. */
  releaseOne(): void;
  /** Headers of the requests it received (the door's configured headers reach it). */
  readonly headersSeen: Record<string, string | string[] | undefined>[];
  /** The tool calls that reached it, by tool name, the cut ones included. */
  readonly callsSeen: string[];
  /** Cuts the connection of the next `count` tool calls (the way to the server failing), answering none. */
  cutCalls(count: number): void;
  close(): Promise<void>;
}

export async function startHttpUpstream(): Promise<HttpUpstream> {
  const held: (() => void)[] = [];
  const watchers: { count: number; resolve: () => void }[] = [];
  const headersSeen: HttpUpstream['headersSeen'] = [];
  const callsSeen: string[] = [];
  let toCut = 0;
  let maxHolding = 0;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const notify = () => {
    for (const watcher of [...watchers]) if (held.length >= watcher.count) watchers.splice(watchers.indexOf(watcher), 1), watcher.resolve();
  };
  const mcpServer = () => {
    const server = new McpServer({ name: 'test-http', version: '1.0.0' });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    server.registerTool('double', { description: 'Doubles a number', inputSchema: { n: z.number() }, annotations: { idempotentHint: true } }, ({ n }) => ({ content: [{ type: 'text', text: String(2 * n) }] }));
    server.registerTool('hold', { description: 'Answers when the test lets it' }, () =>
      new Promise((resolve) => {
        held.push(() => resolve({ content: [{ type: 'text', text: 'released' }] }));
        maxHolding = Math.max(maxHolding, held.length);
        notify();
      }),
    );
    return server;
  };
  const http: Server = createServer(async (request, response) => {
    headersSeen.push(request.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    if (body?.method === 'tools/call') {
      callsSeen.push(String(body.params?.name));
      if (toCut > 0) return void ((toCut -= 1), request.socket.destroy());
    }
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (transport === undefined && isInitializeRequest(body)) {
      const opened = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void transports.set(sid, opened) });
      await mcpServer().connect(opened);
      transport = opened;
    }
    if (transport === undefined) return void response.writeHead(404).end();
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get holding() {
      return held.length;
    },
    get maxHolding() {
      return maxHolding;
    },
    holdingReaches: (count) => new Promise<void>((resolve) => (watchers.push({ count, resolve }), notify())),
    releaseOne: () => held.shift()?.(),
    headersSeen,
    callsSeen,
    cutCalls: (count) => void (toCut = count),
    async close() {
      while (held.length > 0) held.shift()!();
      await Promise.allSettled([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
