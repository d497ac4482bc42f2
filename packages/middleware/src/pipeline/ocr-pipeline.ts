import type { CallStats, OcrLayoutResult, OcrModel, OcrOptions, OcrTextResult } from '@pgw/core';
import type { CallOptions } from './chat-pipeline.js';
import { compose, type Middleware } from './compose.js';
import { callStats, createCallContext } from './context.js';
import { callDeadlineBoundary } from './deadline-boundary.js';
import { callEventsMiddleware } from '../telemetry/call-events.js';
import { buildPipelineBase, type PipelineParts } from './pipeline-base.js';
import { ocrLayoutOperation, ocrTextOperation, type OcrRequest } from './ocr-operation.js';
import { underOwnSignal } from './own-signal.js';
import { retryLoop } from './retry-loop.js';

export type OcrPipelineParts = PipelineParts<OcrModel>;

export interface OcrPipeline {
  recognizeText(image: Uint8Array, options?: OcrOptions, call?: CallOptions): Promise<OcrTextResult>;
  parseLayout(image: Uint8Array, options?: OcrOptions, call?: CallOptions): Promise<OcrLayoutResult>;
  readonly droppedTelemetryRows: number;
  /** How many of `tenantId`'s calls wait for room in this process now. */
  waiting(tenantId: string): number;
}

/** The OCR onions (text and layout), outer → inner: call events → call deadline → retry loop → model. */
export function assembleOcrPipeline(parts: OcrPipelineParts): OcrPipeline {
  const { settings, now } = parts;
  const { retryDeps, emitter, events, models } = buildPipelineBase(parts, ['recognizeText', 'parseLayout', 'checkHealth']);
  const outer = <Res extends { source: string; callStats: CallStats }>(): Array<Middleware<OcrRequest, Res>> => [
    callEventsMiddleware({
      events,
      now,
      models,
      summarize: (response) => ({ source: response.source, cached: false }),
      finalize: (response, stats) => ({ ...response, callStats: stats }),
    }),
    callDeadlineBoundary(),
  ];
  const retryText = retryLoop(retryDeps, ocrTextOperation());
  const retryLayout = retryLoop(retryDeps, ocrLayoutOperation());
  const text = compose<OcrRequest, OcrTextResult>(outer(), async (call) => {
    const { result, source } = await retryText(call);
    return { text: result.text, source: source.name, callStats: callStats(call.ctx, now) };
  });
  const layout = compose<OcrRequest, OcrLayoutResult>(outer(), async (call) => {
    const { result, source } = await retryLayout(call);
    return { ...result, source: source.name, callStats: callStats(call.ctx, now) };
  });
  return {
    recognizeText: (image, options = {}, call = {}) =>
      underOwnSignal(call.signal, (signal) =>
        text({ request: { image, options }, ctx: createCallContext({ signal, scope: settings.scope, operation: 'ocr_text', now }, call) }),
      ),
    parseLayout: (image, options = {}, call = {}) =>
      underOwnSignal(call.signal, (signal) =>
        layout({ request: { image, options }, ctx: createCallContext({ signal, scope: settings.scope, operation: 'ocr_layout', now }, call) }),
      ),
    waiting: (tenantId) => retryDeps.line.waiting(tenantId),
    get droppedTelemetryRows() {
      return emitter.droppedRows;
    },
  };
}
