/**
 * The AI SDK model shapes `fromLanguageModel` / `fromEmbeddingModel` accept. V2 and V3 are the
 * types of `@ai-sdk/provider` 3 (AI SDK 5 and 6); V4 (AI SDK 7, `@ai-sdk/provider` 4) is declared
 * here by the parts this package reads, so it needs no second copy of the provider package.
 */
import type {
  EmbeddingModelV2,
  EmbeddingModelV3,
  LanguageModelV2,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';

/** V4 call options: V3's, with files as `{ type: 'data' | 'url' }` and the reasoning setting. */
export type LanguageModelV4CallOptions = Omit<LanguageModelV3CallOptions, 'prompt'> & {
  prompt: unknown[];
  reasoning?: 'provider-default' | 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
};

export interface LanguageModelV4 {
  readonly specificationVersion: 'v4';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: LanguageModelV4CallOptions): PromiseLike<LanguageModelV3GenerateResult>;
  doStream(options: LanguageModelV4CallOptions): PromiseLike<{ stream: ReadableStream<LanguageModelV3StreamPart> }>;
}

export type AnyLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4;

export interface EmbeddingModelV4 {
  readonly specificationVersion: 'v4';
  readonly provider: string;
  readonly modelId: string;
  doEmbed: EmbeddingModelV3['doEmbed'];
}

export type AnyEmbeddingModel = EmbeddingModelV2<string> | EmbeddingModelV3 | EmbeddingModelV4;
