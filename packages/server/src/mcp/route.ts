/**
 * `POST`/`GET`/`DELETE /mcp`: the door's MCP endpoint, behind the same keys as the model routes
 * (`protected`: the door checks the key first). The endpoint (sessions.ts: the MCP SDK and the
 * gateway) is loaded and opened on the first request, so a server without MCP servers never loads
 * the SDK, and a server with them connects to its governance store only when MCP is used.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROTECTED } from '../routes/governed.js';
import type { McpServerStatus } from './gateway.js';

export interface McpEndpoint {
  handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  status(): Promise<McpServerStatus[]>;
  close(): Promise<void>;
}

export function registerMcpRoutes(app: FastifyInstance, endpoint: () => Promise<McpEndpoint>): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => (await endpoint()).handle(request, reply);
  app.post('/mcp', PROTECTED, handle);
  app.get('/mcp', PROTECTED, handle);
  app.delete('/mcp', PROTECTED, handle);
}
