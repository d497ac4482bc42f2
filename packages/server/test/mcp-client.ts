/** The official MCP SDK's client against a door's `/mcp`, with an API key. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function mcpClient(baseUrl: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'pgw-test', version: '1.0.0' });
  const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The text of a tool's answer. */
export const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/** One JSON-RPC request of session `sessionId` at the door's `/mcp`, past the SDK's client (which would refuse a method the server does not announce). */
export function sessionRequest(baseUrl: string, key: string, sessionId: string, method: string): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
  });
}
