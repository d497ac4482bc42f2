/**
 * How the door names what its upstream servers offer — `<server>__<tool>` (a server's name never
 * holds `__`, so the first `__` splits) — and who may use it: a key's `mcp` list names a whole server
 * or one of its tools; a key without a list may use none; a server without keys lets every caller use all.
 */
import { SERVER_NAME } from './settings.js';

export const SEPARATOR = '__';

export const publicName = (server: string, name: string): string => `${server}${SEPARATOR}${name}`;

/** The server and the upstream's own name of a door name, or undefined when it names no server. */
export function splitName(name: string): { server: string; name: string } | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const server = name.slice(0, at);
  return SERVER_NAME.test(server) && at + SEPARATOR.length < name.length ? { server, name: name.slice(at + SEPARATOR.length) } : undefined;
}

/** Who calls, as far as MCP goes: `mcp` undefined = everything (a server without keys). */
export interface McpGrant {
  readonly mcp?: ReadonlySet<string>;
}

export const mayUseServer = (grant: McpGrant, server: string): boolean => grant.mcp === undefined || grant.mcp.has(server) || [...grant.mcp].some((item) => item.startsWith(`${server}${SEPARATOR}`));

export const mayUseTool = (grant: McpGrant, server: string, tool: string): boolean => grant.mcp === undefined || grant.mcp.has(server) || grant.mcp.has(publicName(server, tool));
