// Where the behaviours live: openai-compatible.ts is the model (chat and embeddings of one
// endpoint) over @pgw/http's attempt; request-body.ts and tool-wire.ts write the wire bodies;
// chat-answer.ts and chat-stream.ts read a whole or streamed answer, usage.ts its usage;
// error-translation.ts sorts a 2xx answer that cannot be used.
export { openaiCompatible, OPENAI_COMPATIBLE_PROVIDER, type OpenAICompatibleModel } from './openai-compatible.js';
export { DEFAULT_FIRST_TOKEN_MS, DEFAULT_INTER_TOKEN_MS, type LivenessOptions } from '@pgw/http';
export type { OpenAICompatibleOptions } from './options.js';
