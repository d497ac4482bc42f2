import type { CallResultSummary, CallStats, EmbeddingModel, EmbeddingSettings, Usage, UsageSource } from '@pgw/core';
import { costUsd } from '@pgw/core/internal';
import type { CallOptions } from './chat-pipeline.js';
import { compose } from './compose.js';
import { callStats, createCallContext } from './context.js';
import { callDeadlineBoundary } from './deadline-boundary.js';
import { embedOperation } from './embed-operation.js';
import { callEventsMiddleware } from '../telemetry/call-events.js';
import { buildPipelineBase, type PipelineParts, type PipelineSettings } from './pipeline-base.js';
import { underOwnSignal } from './own-signal.js';
import { retryLoop } from './retry-loop.js';
import { userLayers, type UserMiddleware } from './user-middleware.js';

export interface EmbeddingResponse {
  vectors: number[][];
  model: string;
  /** The source of each batch, in batch order. */
  sources: string[];
  /** Summed over the batches; `usageSource` is the weakest of them. */
  usage: Usage;
  callStats: CallStats;
  /** Undefined when some batch's model has no price. */
  costUsd?: number;
}

export interface EmbedPipelineParts extends PipelineParts<EmbeddingModel> {
  settings: PipelineSettings<EmbeddingModel> & Pick<EmbeddingSettings, 'batchSize' | 'normalize' | 'expectedDim'>;
  /** The user's layers, inside the call deadline and outside the batches (`[0]` outermost). */
  middleware?: readonly EmbeddingMiddleware[];
}

/** What an embedding middleware sees and may rewrite: all the call's texts, before batching. */
export interface EmbeddingCallRequest {
  texts: string[];
}

export type EmbeddingMiddleware = UserMiddleware<EmbeddingCallRequest, EmbeddingResponse>;

export interface EmbedPipeline {
  run(texts: string[], options?: CallOptions): Promise<EmbeddingResponse>;
  readonly droppedTelemetryRows: number;
  /** How many of `tenantId`'s calls wait for room in this process now. */
  waiting(tenantId: string): number;
}

const USAGE_STRENGTH: readonly UsageSource[] = ['unavailable', 'estimated', 'measured'];

/**
 * The embedding onion, outer → inner: call events (start/end; the terminal row) → call deadline →
 * user middleware → batches → retry loop → model.
 * Batches run one after another inside ONE logical call: one deadline, one attempt ledger, one terminal row.
 */
export function assembleEmbedPipeline(parts: EmbedPipelineParts): EmbedPipeline {
  const { settings, now, pricing } = parts;
  if (!Number.isInteger(settings.batchSize) || settings.batchSize < 1) {
    throw new RangeError(`settings.batchSize must be an integer ≥ 1, got ${settings.batchSize}`);
  }
  const { retryDeps, emitter, events, models } = buildPipelineBase(parts, ['embed']);
  const retry = retryLoop(retryDeps, embedOperation(settings.expectedDim));
  const onion = compose<EmbeddingCallRequest, EmbeddingResponse>(
    [
      callEventsMiddleware({ events, now, models, summarize: summarizeEmbedding, finalize: (response, stats) => ({ ...response, callStats: stats }) }),
      callDeadlineBoundary(),
      ...userLayers<EmbeddingCallRequest, EmbeddingResponse>(parts.middleware, 'middleware'),
    ],
    async (call) => {
      const response: EmbeddingResponse = {
        vectors: [],
        model: '',
        sources: [],
        usage: { promptTokens: 0, completionTokens: 0, usageSource: 'measured' },
        callStats: callStats(call.ctx, now),
        costUsd: 0,
      };
      for (let start = 0; start < call.request.texts.length; start += settings.batchSize) {
        const texts = call.request.texts.slice(start, start + settings.batchSize);
        const { result, source } = await retry({ request: { texts }, ctx: call.ctx });
        response.vectors.push(...(settings.normalize ? result.vectors.map(unitLength) : result.vectors));
        response.model = result.model;
        response.sources.push(source.name);
        response.usage = addUsage(response.usage, result.usage);
        const cost = costUsd(result.usage, result.model, pricing, source.price);
        response.costUsd = cost === undefined || response.costUsd === undefined ? undefined : response.costUsd + cost;
      }
      return response;
    },
  );
  return {
    run: async (texts, options = {}) => {
      if (texts.length === 0) {
        // Nothing to wait for: zero attempts, no rows, no deadline.
        const ctx = createCallContext({ signal: options.signal, scope: settings.scope, operation: 'embed', now }, options);
        const usage: Usage = { promptTokens: 0, completionTokens: 0, usageSource: 'measured' };
        return { vectors: [], model: '', sources: [], usage, callStats: callStats(ctx, now), costUsd: 0 };
      }
      return underOwnSignal(options.signal, (signal) =>
        onion({ request: { texts }, ctx: createCallContext({ signal, scope: settings.scope, operation: 'embed', now }, options) }),
      );
    },
    waiting: (tenantId) => retryDeps.line.waiting(tenantId),
    get droppedTelemetryRows() {
      return emitter.droppedRows;
    },
  };
}

function addUsage(total: Usage, batch: Usage): Usage {
  const weakest = Math.min(USAGE_STRENGTH.indexOf(total.usageSource), USAGE_STRENGTH.indexOf(batch.usageSource));
  return {
    promptTokens: total.promptTokens + batch.promptTokens,
    completionTokens: total.completionTokens + batch.completionTokens,
    usageSource: USAGE_STRENGTH[weakest]!,
  };
}

function unitLength(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

function summarizeEmbedding(response: EmbeddingResponse): CallResultSummary {
  const { model, usage, costUsd } = response;
  return { source: response.sources.at(-1), model, usage, costUsd, cached: false };
}
