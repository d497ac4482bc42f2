// The governance as an OpenAI-compatible HTTP server (see README.md).
// Where the behaviours live: server.ts listens and drains; scope-clients.ts builds a client per scope.
// door/ guards every request before a route reads a body (door/door.ts: request id, auth on the
// matched route, host check; who calls: door/api-keys.ts, door/admin-keys.ts, door/caller.ts; a
// refused body discarded: door/refused-body.ts; what the drain waits for: door/inflight.ts) and answers
// every error in its protocol's shape (door/http-errors.ts, door/failure-reply.ts, door/request-error.ts).
// routes/ holds the routes (routes/routes.ts) and the Responses conversation store
// (routes/stored-responses.ts). Each protocol's request is parsed by its *-request.ts (chat,
// responses with responses-tools.ts, messages; embeddings.ts; shared: request-schema.ts,
// caller-schema.ts, tool-fields.ts) and answered by its *-response.ts. streaming/ writes a stream as
// Server-Sent Events (streaming/sse.ts, streaming/disconnect.ts, streaming/call-context.ts). batches/
// runs the batch API; operations/ is the operator's side (metrics, the metrics listener, the access
// log, the server's settings, tenant labels); console-*.ts is the console at /ui.
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './operations/server-settings.js';
export type { ServerSettings } from './operations/server-settings.js';
export { failureAnswer, errorBody } from './door/http-errors.js';
export type { FailureAnswer, OpenAIErrorBody } from './door/http-errors.js';
export { InvalidRequestFieldError, UnknownModelError, UnauthorizedError } from './door/request-error.js';
export type { ConsolePanel, ConsoleState, ConsoleTable } from './console-state.js';
