// The governance as an HTTP server (see README.md); every protocol's translation is @pgw/wire's.
// Where the behaviours live: server.ts listens and drains; scope-clients.ts builds a client per scope.
// door/ guards every request before a route reads a body (door/door.ts: request id, auth on the
// matched route, host check; who calls: door/api-keys.ts, door/admin-keys.ts, door/caller.ts; a
// refused body discarded: door/refused-body.ts; what the drain waits for: door/inflight.ts) and answers
// every error in its protocol's shape (door/http-errors.ts, door/failure-reply.ts, door/request-error.ts).
// routes/ has one file per protocol, thin over @pgw/wire (routes/chat.ts, routes/responses.ts with its
// store routes/stored-responses.ts, routes/messages.ts, routes/embeddings.ts), what a governed call's
// route shares (routes/governed.ts), and the rest of the API (routes/routes.ts). streaming/ writes a
// stream as Server-Sent Events with the encoder its route hands it (streaming/sse.ts,
// streaming/disconnect.ts, streaming/call-context.ts). batches/ runs the batch API; operations/ is
// the operator's side (metrics, the metrics listener, the access log, the server's settings, tenant
// labels); console/ is the console at /ui (its page script: console/browser/, built into
// console/script.ts). keys/ keeps API keys as data (issue 49): the door's cached read of the key store
// (keys/stored-keys.ts, a key's secret: keys/key-material.ts, what its request carries:
// keys/key-bounds.ts), where the store lives (keys/key-store-settings.ts), and the admin API under
// /admin/keys (keys/admin-routes.ts, its gate keys/admin-gate.ts, its bodies keys/admin-body.ts, its
// changes keys/key-admin.ts, what it shows keys/key-view.ts, a key's use keys/key-usage.ts, the console's Keys panel keys/key-panel.ts).
// mcp/ is the MCP gateway at /mcp: its settings (mcp/settings.ts), the upstream
// servers it supervises (mcp/upstreams.ts), their names and who may use them (mcp/names.ts), the
// governance of their calls (mcp/governance.ts), the gateway (mcp/gateway.ts), the endpoint
// (mcp/route.ts) loading its sessions (mcp/sessions.ts) on first use, the audit (mcp/audit.ts), its
// errors (mcp/errors.ts) and console panel (mcp/panel.ts).
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './operations/server-settings.js';
export type { ServerSettings } from './operations/server-settings.js';
export { failureAnswer } from './door/http-errors.js';
export type { FailureAnswer } from './door/http-errors.js';
export { errorBody, InvalidRequestFieldError } from '@pgw/wire';
export type { OpenAIErrorBody } from '@pgw/wire';
export { UnknownModelError, UnauthorizedError } from './door/request-error.js';
export type { ConsolePanel, ConsoleState, ConsoleTable } from './console/state.js';
export type { McpServerStatus } from './mcp/gateway.js';
