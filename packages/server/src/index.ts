// The governance as an OpenAI-compatible HTTP server (see README.md).
// Where the behaviours live: server.ts listens and drains (inflight.ts the calls it waits for);
// server-settings.ts reads the `PGW_SERVER__…` keys (api-keys.ts the API keys, admin-keys.ts the
// operators'); door.ts guards every request (request id, auth on the matched route, host check,
// refused bodies discarded: refused-body.ts; access-log.ts logs it) before routes.ts reads a body;
// caller.ts says who a request is served as, scope-clients.ts which governed client serves it,
// call-context.ts carries the call's id and source to its headers, disconnect.ts aborts the call of a
// client gone. Each protocol's request is checked by request-schema.ts (request-error.ts its refusals),
// parsed by its *-request.ts (chat, responses with responses-tools.ts and stored-responses.ts, messages;
// embeddings.ts; tool-fields.ts the tools of any, caller-schema.ts a caller's JSON Schema) and answered
// by its *-response.ts, streamed by sse.ts; batch-routes.ts and batches.ts run the batch API over
// batch-store.ts, console-*.ts the console at /ui; metrics.ts counts for `/metrics` (tenant-labels.ts
// bounds its tenants, metrics-listener.ts serves it on an address of its own); an error's OpenAI shape
// and status are http-errors.ts, failure-reply.ts answers it in the route's protocol.
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './server-settings.js';
export type { ServerSettings } from './server-settings.js';
export { failureAnswer, errorBody } from './http-errors.js';
export type { FailureAnswer, OpenAIErrorBody } from './http-errors.js';
export { InvalidRequestFieldError, UnknownModelError, UnauthorizedError } from './request-error.js';
export type { ConsolePanel, ConsoleState, ConsoleTable } from './console-state.js';
