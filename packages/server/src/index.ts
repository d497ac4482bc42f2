// The governance as an OpenAI-compatible HTTP server (see README.md).
// Where the behaviours live: server.ts listens and drains; door.ts guards every request (request id,
// auth on the matched route, host check, refused bodies discarded: refused-body.ts) before routes.ts
// reads a body; each protocol's request is parsed by its *-request.ts (chat, responses with
// responses-tools.ts, messages; embeddings.ts) and answered by its *-response.ts, streamed by sse.ts;
// batch-routes.ts and batches.ts run the batch API, console/ the console at /ui (its page script:
// console/browser/, built into console/script.ts); an error's OpenAI shape and status are
// http-errors.ts.
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './server-settings.js';
export type { ServerSettings } from './server-settings.js';
export { failureAnswer, errorBody } from './http-errors.js';
export type { FailureAnswer, OpenAIErrorBody } from './http-errors.js';
export { InvalidRequestFieldError, UnknownModelError, UnauthorizedError } from './request-error.js';
export type { ConsolePanel, ConsoleState, ConsoleTable } from './console/state.js';
