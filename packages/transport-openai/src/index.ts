export { openaiCompatible, OPENAI_COMPATIBLE_PROVIDER, type OpenAICompatibleModel } from './openai-compatible.js';
export { DEFAULT_FIRST_TOKEN_MS, DEFAULT_INTER_TOKEN_MS, type LivenessOptions } from '@pgw/http';
export type { OpenAICompatibleOptions } from './options.js';
