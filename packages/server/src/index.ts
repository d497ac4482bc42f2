// The governance as an OpenAI-compatible HTTP server (see README.md).
// Where the behaviours live: server.ts listens and drains; door.ts guards every request (request id,
// auth on the matched route, host check) before routes.ts reads a body; chat-request.ts and
// embeddings.ts parse and call; chat-response.ts and sse.ts answer; an error's OpenAI shape and
// status are http-errors.ts.
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './server-settings.js';
export type { ServerSettings } from './server-settings.js';
export { httpFailure, errorBody } from './http-errors.js';
export type { HttpFailure, OpenAIErrorBody } from './http-errors.js';
export { InvalidRequestFieldError, UnknownModelError, UnauthorizedError } from './request-error.js';
export type { ConsolePanel, ConsoleState, ConsoleTable } from './console-state.js';
