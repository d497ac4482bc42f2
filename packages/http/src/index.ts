// Where the behaviours live: attempt.ts runs one HTTP attempt of any provider under an
// AttemptScope (attempt-scope.ts: the caller's signal, the attempt's timeout, the liveness timer of
// liveness-timer.ts — the first-token and inter-token limits of a stream; cancel-handle.ts the cancel
// handle undici takes); failure.ts sorts an HTTP failure into the four categories (a 429's Retry-After
// is read there, context-length.ts tells a prompt too long for the model); in-band.ts finds errors in
// a 2xx body (json.ts narrows its JSON); body.ts reads bodies within their bound; sse-parser.ts parses
// a stream; agent.ts and endpoint.ts are the connection pool and where a model sends its requests;
// options.ts checks the options every provider factory shares.
export { createAgent, ModelDispatcher, type AgentOptions } from './agent.js';
export {
  Endpoint,
  DEFAULT_API_KEY_HEADER,
  checkApiKey,
  checkApiKeyHeader,
  checkBaseUrl,
  checkHeaders,
  checkQuery,
  isHeaderName,
  isHeaderValue,
  type EndpointOptions,
  type RequestTarget,
} from './endpoint.js';
export { sendAttempt, type HttpAnswer, type HttpAttempt } from './attempt.js';
export { AttemptScope, type AttemptScopeOptions } from './attempt-scope.js';
export { DEFAULT_MAX_RESPONSE_BYTES, ERROR_BODY_LIMIT_BYTES, bodyTooLarge, isEventStream, type BodyOrigin } from './body.js';
export {
  translateHttpFailure,
  translateNetworkFailure,
  type HttpFailure,
  type HttpFailureContext,
  type NetworkFailureContext,
} from './failure.js';
export { translateInBandError, inBandErrorObject, type InBandContext } from './in-band.js';
export { SseParser, type SseEvent } from './sse-parser.js';
export type { LivenessLimits, LivenessPhase } from './liveness-timer.js';
export { isRecord } from './json.js';
export {
  DEFAULT_FIRST_TOKEN_MS,
  DEFAULT_INTER_TOKEN_MS,
  checkDispatcher,
  checkFunction,
  checkLiveness,
  checkMaxResponseBytes,
  checkNonEmptyString,
  type LivenessOptions,
  type ResolvedLiveness,
} from './options.js';
