export { createAgent, ModelDispatcher, DEFAULT_CONNECTIONS, type AgentOptions } from './agent.js';
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
