// The governance as an OpenAI-compatible HTTP server (see README.md).
export { GatewayServer } from './server.js';
export type { GatewayServerOptions, ListenOptions } from './server.js';
export { loadServerSettings, SERVER_DEFAULTS } from './server-settings.js';
export type { ServerSettings } from './server-settings.js';
export { httpFailure, errorBody } from './http-errors.js';
export type { HttpFailure, OpenAIErrorBody } from './http-errors.js';
export { InvalidRequestFieldError, UnknownModelError, UnauthorizedError } from './request-error.js';
