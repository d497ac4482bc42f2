import type { AttemptContext, OcrOptions } from '@pgw/core';
import { createAgent, type AgentOptions } from '@pgw/http';
import type { MockUpstream } from '@pgw/mock-upstream';
import { recordingAttempt } from '@pgw/testkit';
import { monkeyOcr, type MonkeyOcrOptions } from '../src/index.js';

export const API_KEY = 'sk-ocr-secret-7f3a9c';

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A mock source: its name, the attempt timeout its calls get, and the options of models pointing at it. */
export interface OcrSource {
  name: string;
  timeoutMs: number;
  options: MonkeyOcrOptions;
}

/** An OCR source pointing at a mock source's server root. */
export function ocrSource(mock: MockUpstream, name: string, overrides: Partial<MonkeyOcrOptions> & { timeoutMs?: number } = {}): OcrSource {
  const { timeoutMs = 5000, ...options } = overrides;
  return { name, timeoutMs, options: { baseUrl: `${mock.url}/${name}`, apiKey: API_KEY, ...options } };
}

/** An attempt context (the harness fills in the source's name and timeout). */
export const attemptContext = (signal?: AbortSignal): AttemptContext => recordingAttempt(signal);

/** Models made by `monkeyOcr` over one injected Agent (closed by `close()`); the source fills the attempt's name and timeout. */
export function harness(shared: Partial<MonkeyOcrOptions> = {}, agentOptions: AgentOptions = {}) {
  const dispatcher = createAgent(agentOptions);
  const model = (source: OcrSource) => monkeyOcr({ ...source.options, ...shared, dispatcher });
  const attempt = (source: OcrSource, ctx: AttemptContext): AttemptContext => ({ ...ctx, sourceName: source.name, timeoutMs: source.timeoutMs });
  return {
    model,
    recognizeText: (source: OcrSource, image: Uint8Array, options: OcrOptions, ctx: AttemptContext) =>
      model(source).recognizeText(image, options, attempt(source, ctx)),
    parseLayout: (source: OcrSource, image: Uint8Array, options: OcrOptions, ctx: AttemptContext) =>
      model(source).parseLayout(image, options, attempt(source, ctx)),
    checkHealth: (source: OcrSource, signal?: AbortSignal) =>
      model(source).checkHealth({ ...(signal !== undefined && { signal }), timeoutMs: source.timeoutMs }),
    close: () => dispatcher.close(),
  };
}

/** Resolves with what `promise` rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
