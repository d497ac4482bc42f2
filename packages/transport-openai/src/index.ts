// Where the behaviours live: openai-compatible.ts is the model (chat and embeddings of one
// endpoint, its options checked in options.ts) over @pgw/http's attempt; request-body.ts and
// tool-wire.ts write the wire bodies (strict-schema.ts decides whether a schema goes `strict`);
// chat-answer.ts and chat-stream.ts read a whole or streamed answer, embed-answer.ts the vectors,
// usage.ts its usage, all through answer-json.ts (a 2xx body that must be JSON) and json.ts;
// error-translation.ts sorts a 2xx answer that cannot be used.
export { openaiCompatible, OPENAI_COMPATIBLE_PROVIDER, type OpenAICompatibleModel } from './openai-compatible.js';
export { DEFAULT_FIRST_TOKEN_MS, DEFAULT_INTER_TOKEN_MS, type LivenessOptions } from '@pgw/http';
export type { OpenAICompatibleOptions } from './options.js';
