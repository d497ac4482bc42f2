/**
 * `fromEmbeddingModel`: any AI SDK embedding model (V2, V3 or V4) as an `EmbeddingModel` of this
 * library: one `doEmbed` per attempt, under the attempt's signal and timeout, failures classified
 * as `fromLanguageModel` classifies them. The governed path batches (`BATCH_SIZE`): a batch larger
 * than the model's `maxEmbeddingsPerCall` is refused as a bad request, never split here.
 */
import { MODEL_SPECIFICATION_VERSION, estimateTokens, type EmbeddingModel } from '@pgw/core';
import type { AnyEmbeddingModel } from './ai-sdk-models.js';
import { runAttempt } from './attempt-run.js';

export interface FromEmbeddingModelOptions {
  provider?: string;
  modelId?: string;
  secrets?: readonly string[];
  warn?: (message: string) => void;
}

export function fromEmbeddingModel(model: AnyEmbeddingModel, options: FromEmbeddingModelOptions = {}): EmbeddingModel {
  const version = model.specificationVersion;
  if (version !== 'v2' && version !== 'v3' && version !== 'v4') {
    throw new TypeError(`fromEmbeddingModel(model) must be an AI SDK embedding model of specification v2, v3 or v4, got ${String(version)}`);
  }
  const modelId = options.modelId ?? model.modelId;
  const run = { ...(options.secrets && { secrets: options.secrets }), ...(options.warn && { warn: options.warn }) };
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: options.provider ?? model.provider,
    modelId,
    embed: (request, attempt) =>
      runAttempt(attempt, run, async (abortSignal) => {
        const result = await model.doEmbed({ values: request.texts, abortSignal });
        const tokens = result.usage?.tokens;
        const usage =
          tokens === undefined
            ? { promptTokens: request.texts.reduce((sum, text) => sum + estimateTokens(text), 0), completionTokens: 0, usageSource: 'estimated' as const }
            : { promptTokens: tokens, completionTokens: 0, usageSource: 'measured' as const };
        attempt.onUsage?.(usage);
        return { vectors: result.embeddings, model: modelId, usage };
      }),
  };
}
