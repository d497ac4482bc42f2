/** Why a tool call through the door did not reach, or did not come back from, its upstream server. */

/** The server cannot be used now: its process or connection is down (in its restart backoff) or its breaker is open. */
export class McpServerUnavailableError extends Error {
  readonly server: string;
  readonly reason: 'down' | 'circuit_open';
  readonly retryAfterMs: number;

  constructor(server: string, reason: 'down' | 'circuit_open', retryAfterMs: number, cause?: unknown) {
    super(`MCP server "${server}" is unavailable (${reason === 'down' ? 'it is down' : 'its breaker is open'}); retry in ${Math.ceil(retryAfterMs / 1000)} s`, cause === undefined ? undefined : { cause });
    this.name = 'McpServerUnavailableError';
    this.server = server;
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

/** The call did not finish within its server's `PGW_MCP__<SERVER>__TIMEOUT_S` (waiting for room included). */
export class McpCallTimeoutError extends Error {
  readonly server: string;
  readonly timeoutMs: number;

  constructor(server: string, timeoutMs: number) {
    super(`The call to MCP server "${server}" did not finish within ${timeoutMs / 1000} s (PGW_MCP__${server.toUpperCase()}__TIMEOUT_S)`);
    this.name = 'McpCallTimeoutError';
    this.server = server;
    this.timeoutMs = timeoutMs;
  }
}
