export { toLanguageModel, type ToLanguageModelOptions } from './to-language-model.js';
export type { PgwCallOptions } from './pgw-options.js';
export { toEmbeddingModel, type ToEmbeddingModelOptions } from './to-embedding-model.js';
