/**
 * `toEmbeddingModel`: an `EmbeddingClient` as an AI SDK `EmbeddingModelV3`. Every `doEmbed` (one
 * `embed` / `embedMany` call, or one of its chunks) is one governed embedding call: the client
 * batches by its own `BATCH_SIZE`, so the AI SDK need not split.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type { EmbeddingClient, EmbedOptions } from '@pgw/client';
import { headerWarnings } from './header-warnings.js';
import { pgwOptions } from './pgw-options.js';

export interface ToEmbeddingModelOptions {
  /** Default: the model of the client's first source. */
  modelId?: string;
  /** Default `pgw`. */
  providerId?: string;
}

export function toEmbeddingModel(client: EmbeddingClient, options: ToEmbeddingModelOptions = {}): EmbeddingModelV3 {
  return {
    specificationVersion: 'v3',
    provider: options.providerId ?? 'pgw',
    modelId: options.modelId ?? client.settings.sources[0]?.model ?? client.settings.scope,
    maxEmbeddingsPerCall: Number.POSITIVE_INFINITY,
    supportsParallelCalls: true,
    async doEmbed({ values, abortSignal, providerOptions, headers }) {
      const { cacheBypass, reasoningEffort, ...common } = pgwOptions(providerOptions);
      const warnings = headerWarnings(headers);
      if (cacheBypass !== undefined || reasoningEffort !== undefined) {
        warnings.push({ type: 'unsupported', feature: 'providerOptions.pgw', details: 'cacheBypass and reasoningEffort are chat options' });
      }
      const call: EmbedOptions = { ...common, ...(abortSignal && { signal: abortSignal }) };
      const response = await client.embed(values, call);
      return {
        embeddings: response.vectors,
        usage: { tokens: response.usage.promptTokens },
        providerMetadata: {
          pgw: {
            sources: response.sources,
            costUsd: response.costUsd ?? null,
            callId: response.callStats.logicalCallId,
            callStats: { ...response.callStats, sourcesTried: [...response.callStats.sourcesTried] },
          },
        },
        warnings,
      };
    },
  };
}
