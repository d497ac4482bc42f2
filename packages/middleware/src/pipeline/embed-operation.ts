import { estimateTokens, ResultInvalidError, type EmbeddingModel, type EmbedRequest, type EmbedResult } from '@pgw/core';
import type { AttemptOperation } from './operation.js';

/** Embedding attempts: charged by usage; every failure, 429 included, consumes the attempt budget. */
export function embedOperation(expectedDim: number | undefined): AttemptOperation<EmbedRequest, EmbedResult, EmbeddingModel> {
  return {
    tokenAccounting: 'tokens',
    rateLimitsConsumeBudget: true,
    invoke: (source, request, attempt) => source.model.embed(request, attempt),
    usageOf: (result) => result.usage,
    validate: (result, request, source) => {
      const issues: string[] = [];
      if (result.vectors.length !== request.texts.length) {
        issues.push(`expected ${request.texts.length} vectors, got ${result.vectors.length}`);
      }
      if (expectedDim !== undefined) {
        const wrong = result.vectors.findIndex((vector) => vector.length !== expectedDim);
        if (wrong >= 0) issues.push(`vector ${wrong} has dimension ${result.vectors[wrong]!.length}, expected ${expectedDim}`);
      }
      if (issues.length > 0) {
        throw new ResultInvalidError({ message: `unusable embedding from ${source.name}: ${issues.join('; ')}`, sourceName: source.name, issues });
      }
    },
    describe: (request, result) => ({ model: result?.model, requestText: request.texts.join('\n') }),
    // An embedding answers no tokens: its prompt is its whole cost.
    budgetTokens: (request) => ({ promptTokens: estimateTokens(request.texts.join('\n')), maxOutputTokens: 0 }),
  };
}
