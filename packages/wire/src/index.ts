// One translation per protocol (see README.md): each protocol's wire body → the governed call's
// arguments, and the governed answer → that protocol's object and stream events, pure (no I/O, no
// HTTP framework, no store). Where the behaviours live: the parsers are chat-request.ts,
// responses-request.ts (its tools: responses-tools.ts), messages-request.ts, embeddings.ts; they
// share request-schema.ts (zod → a 400 naming the field, request-field-error.ts), caller-schema.ts
// (a caller's JSON Schema), tool-fields.ts. Shapers and stream encoders: chat-response.ts,
// responses-response.ts, messages-response.ts, embeddings.ts; the encoders' contract is
// stream-encoder.ts, a failure's fields failure.ts.
export { InvalidRequestFieldError } from './request-field-error.js';
export { parseRequest } from './request-schema.js';
export { callerSchema, MAX_PATTERN_LENGTH, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './caller-schema.js';
export { errorBody } from './failure.js';
export type { OpenAIErrorBody, WireFailure } from './failure.js';
export type { StreamEncoder } from './stream-encoder.js';
export { chatCall } from './chat-request.js';
export type { ChatCall } from './chat-request.js';
export { chatCompletion, chatEncoder, openaiUsage } from './chat-response.js';
export type { OpenAIUsage } from './chat-response.js';
export { responsesCall } from './responses-request.js';
export type { ResponseEcho, ResponsesCall, ResponsesReading } from './responses-request.js';
export { responseObject, responsesEncoder } from './responses-response.js';
export type { OnFinished, ResponseObject } from './responses-response.js';
export { HOSTED_TOOL_POLICIES } from './responses-tools.js';
export type { HostedToolPolicy, NamespacedNames } from './responses-tools.js';
export { countTokensMessages, messagesCall } from './messages-request.js';
export type { MessagesCall } from './messages-request.js';
export { anthropicFailure, anthropicMessage, messagesEncoder } from './messages-response.js';
export { embedCall, embeddingList } from './embeddings.js';
export type { EmbedCall } from './embeddings.js';
