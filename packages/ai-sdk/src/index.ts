// Where the behaviours live. Governed AI SDK code: to-language-model.ts / to-embedding-model.ts
// wrap a client as an AI SDK model (prompt-to-messages.ts in, call-settings.ts the call's settings as
// a governed call's options, pgw-options.ts its `providerOptions.pgw`, header-warnings.ts the headers
// it cannot send; governed-result.ts and stream-parts.ts out). Any AI SDK model as a source:
// from-language-model.ts / from-embedding-model.ts over the model shapes of ai-sdk-models.ts, one
// attempt in attempt-run.ts (messages-to-prompt.ts and request-settings.ts in, model-usage.ts reads
// its usage, a provider's failure sorted by classify-failure.ts); wire-names.ts holds the one table
// of each name mapping.
export { toLanguageModel, type ToLanguageModelOptions } from './to-language-model.js';
export type { PgwCallOptions } from './pgw-options.js';
export { toEmbeddingModel, type ToEmbeddingModelOptions } from './to-embedding-model.js';
export { fromLanguageModel, type FromLanguageModelOptions } from './from-language-model.js';
export type { AnyLanguageModel, AnyEmbeddingModel, LanguageModelV4, EmbeddingModelV4 } from './ai-sdk-models.js';
export { fromEmbeddingModel, type FromEmbeddingModelOptions } from './from-embedding-model.js';
export type { LivenessOptions } from '@pgw/http';
