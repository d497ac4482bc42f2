export { toLanguageModel, type ToLanguageModelOptions } from './to-language-model.js';
export type { PgwCallOptions } from './pgw-options.js';
export { toEmbeddingModel, type ToEmbeddingModelOptions } from './to-embedding-model.js';
export { fromLanguageModel, type FromLanguageModelOptions } from './from-language-model.js';
export type { AnyLanguageModel, AnyEmbeddingModel, LanguageModelV4, EmbeddingModelV4 } from './ai-sdk-models.js';
export { fromEmbeddingModel, type FromEmbeddingModelOptions } from './from-embedding-model.js';
export type { LivenessOptions } from '@pgw/http';
