/**
 * The door's MCP sessions (Streamable HTTP, the SDK's server transport) over the gateway, and what
 * opens them both. An `initialize` without a session opens one (its id in
 * `Mcp-Session-Id`), bound to the caller that opened it: a request of another key is answered as if
 * the session did not exist. Each session is an SDK `Server` answering from the gateway; resources
 * and prompts are not offered (a client asking for them gets the SDK's -32601 "Method not found").
 * A session with no request or stream open for `sessionIdleMs` is ended (a client that went away
 * without its DELETE); at `maxSessions`, a new one ends the longest idle, or is refused (503) when
 * every session is busy.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { EnvRecord } from '@pgw/client';
import type { Clock } from '@pgw/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestCaller } from '../door/caller.js';
import type { ServerMetrics } from '../operations/metrics.js';
import { callerOf } from '../routes/governed.js';
import { McpGateway, type McpServerStatus } from './gateway.js';
import type { McpEndpoint } from './route.js';
import type { McpSettings } from './settings.js';

const SERVER_INFO = { name: 'pgw-serve', version: '0.1.0' };
/** How often idle sessions are looked for, at most (and on requests, by the clock given). */
const SWEEP_MS = 60_000;

interface Session {
  readonly caller: RequestCaller;
  readonly transport: StreamableHTTPServerTransport;
  /** Requests and streams of the session open now, and when the last one ended. */
  open: number;
  lastSeen: number;
}

/** The gateway of `settings` and its sessions: its governance opened now, each upstream on its first use. */
export async function openMcpEndpoint(settings: McpSettings, env: EnvRecord, metrics: ServerMetrics, warn: (message: string) => void, now: Clock): Promise<McpEndpoint> {
  return new McpSessions(await McpGateway.open(settings, env, metrics, warn), settings, now);
}

class McpSessions implements McpEndpoint {
  readonly #sessions = new Map<string, Session>();
  readonly #gateway: McpGateway;
  readonly #idleMs: number;
  readonly #maxSessions: number;
  readonly #now: Clock;
  /** How often idle sessions are looked for: every minute, or the idle time when shorter. */
  readonly #sweepEveryMs: number;
  readonly #sweeper: NodeJS.Timeout;
  #lastSweep: number;

  constructor(gateway: McpGateway, settings: McpSettings, now: Clock) {
    this.#gateway = gateway;
    this.#idleMs = settings.sessionIdleMs;
    this.#maxSessions = settings.maxSessions;
    this.#now = now;
    this.#lastSweep = now();
    this.#sweepEveryMs = Math.min(SWEEP_MS, this.#idleMs);
    this.#sweeper = setInterval(() => this.#sweep(), this.#sweepEveryMs).unref();
  }

  status(): Promise<McpServerStatus[]> {
    return this.#gateway.status();
  }

  /** Ends every session, then stops the upstream servers (a stdio server's process exits). */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.transport.close()));
    this.#sessions.clear();
    await this.#gateway.close();
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const gateway = this.#gateway;
    const caller = callerOf(request);
    const id = request.headers['mcp-session-id'];
    if (this.#now() - this.#lastSweep >= this.#sweepEveryMs) this.#sweep();
    let session: Session;
    if (typeof id === 'string') {
      const found = this.#sessions.get(id);
      // Another key's session is one this caller cannot tell from a session that does not exist.
      if (found === undefined || found.caller.tenantId !== caller.tenantId || found.caller.mcp !== caller.mcp) return jsonRpcError(reply, 404, -32001, 'Session not found');
      session = found;
    } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
      if (this.#sessions.size >= this.#maxSessions && !this.#endIdlest()) return jsonRpcError(reply, 503, -32000, 'Too many MCP sessions, all busy; retry later');
      session = await this.#open(gateway, caller);
    } else {
      return jsonRpcError(reply, 400, -32000, 'Bad Request: send an initialize request, or the Mcp-Session-Id of a session');
    }
    session.open += 1;
    reply.raw.once('close', () => {
      session.open -= 1;
      session.lastSeen = this.#now();
    });
    // The request id reaches the tool call's audit row as the SDK's per-request auth info (its
    // handlers see headers re-read from the raw request, so a header set here would not reach them).
    (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: caller.tenantId ?? '', scopes: [], extra: { requestId: request.id } };
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  }

  /** Ends the sessions idle for the idle time (their clients went away without a DELETE). */
  #sweep(): void {
    const now = this.#now();
    this.#lastSweep = now;
    for (const session of this.#sessions.values()) if (session.open === 0 && now - session.lastSeen >= this.#idleMs) this.#end(session);
  }

  /** Ends the session idle the longest, making room for a new one; false when every session is busy. */
  #endIdlest(): boolean {
    let idlest: Session | undefined;
    for (const session of this.#sessions.values()) if (session.open === 0 && (idlest === undefined || session.lastSeen < idlest.lastSeen)) idlest = session;
    if (idlest !== undefined) this.#end(idlest);
    return idlest !== undefined;
  }

  #end(session: Session): void {
    if (session.transport.sessionId !== undefined) this.#sessions.delete(session.transport.sessionId);
    void session.transport.close().catch(() => undefined);
  }

  async #open(gateway: McpGateway, caller: RequestCaller): Promise<Session> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
      },
    });
    const session: Session = { caller, transport, open: 0, lastSeen: this.#now() };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => gateway.listTools(caller, extra.signal));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const requestId = extra.authInfo?.extra?.['requestId'];
      return gateway.callTool(caller, request.params.name, request.params.arguments, extra.signal, typeof requestId === 'string' ? requestId : undefined);
    });
    await server.connect(transport);
    return session;
  }
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}
