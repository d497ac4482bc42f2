/**
 * The door's MCP sessions (Streamable HTTP, the SDK's server transport) over the gateway, and what
 * opens them both. An `initialize` without a session opens one (its id in
 * `Mcp-Session-Id`), bound to the caller that opened it: a request of another key is answered as if
 * the session did not exist. Each session is an SDK `Server` answering from the gateway; resources
 * and prompts are not offered (a client asking for them gets the SDK's -32601 "Method not found").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { EnvRecord } from '@pgw/client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestCaller } from '../door/caller.js';
import type { ServerMetrics } from '../operations/metrics.js';
import { callerOf } from '../routes/governed.js';
import { McpGateway, type McpServerStatus } from './gateway.js';
import type { McpEndpoint } from './route.js';
import type { McpSettings } from './settings.js';

/** Sessions held at once; a new one beyond is refused (503) until others end. */
const MAX_SESSIONS = 1000;
const SERVER_INFO = { name: 'pgw-serve', version: '0.1.0' };

interface Session {
  readonly caller: RequestCaller;
  readonly transport: StreamableHTTPServerTransport;
}

/** The gateway of `settings` and its sessions: its governance opened now, each upstream on its first use. */
export async function openMcpEndpoint(settings: McpSettings, env: EnvRecord, metrics: ServerMetrics, warn: (message: string) => void): Promise<McpEndpoint> {
  return new McpSessions(await McpGateway.open(settings, env, metrics, warn));
}

class McpSessions implements McpEndpoint {
  readonly #sessions = new Map<string, Session>();
  readonly #gateway: McpGateway;

  constructor(gateway: McpGateway) {
    this.#gateway = gateway;
  }

  status(): Promise<McpServerStatus[]> {
    return this.#gateway.status();
  }

  /** Ends every session, then stops the upstream servers (a stdio server's process exits). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.transport.close()));
    this.#sessions.clear();
    await this.#gateway.close();
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const gateway = this.#gateway;
    const caller = callerOf(request);
    const id = request.headers['mcp-session-id'];
    let transport: StreamableHTTPServerTransport;
    if (typeof id === 'string') {
      const session = this.#sessions.get(id);
      // Another key's session is one this caller cannot tell from a session that does not exist.
      if (session === undefined || session.caller.tenantId !== caller.tenantId || session.caller.mcp !== caller.mcp) return jsonRpcError(reply, 404, -32001, 'Session not found');
      transport = session.transport;
    } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
      if (this.#sessions.size >= MAX_SESSIONS) return jsonRpcError(reply, 503, -32000, 'Too many MCP sessions; retry later');
      transport = await this.#open(gateway, caller);
    } else {
      return jsonRpcError(reply, 400, -32000, 'Bad Request: send an initialize request, or the Mcp-Session-Id of a session');
    }
    // The request id reaches the tool call's audit row as the SDK's per-request auth info (its
    // handlers see headers re-read from the raw request, so a header set here would not reach them).
    (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: caller.tenantId ?? '', scopes: [], extra: { requestId: request.id } };
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  }

  async #open(gateway: McpGateway, caller: RequestCaller): Promise<StreamableHTTPServerTransport> {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { caller, transport });
      },
    });
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
    return transport;
  }
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}
