import type { LayoutElement, OcrOptions, OcrTransport } from '@pgw/core';
import type { AttemptOperation } from './operation.js';

export interface OcrRequest {
  image: Uint8Array;
  options: OcrOptions;
}

export interface OcrLayoutPayload {
  markdown: string;
  elements: LayoutElement[];
  files?: Record<string, Uint8Array>;
}

/** OCR has no tokens: permits always settle 0 (S6); every failure consumes the attempt budget. */
const OCR_ACCOUNTING = { tokenAccounting: 'none', rateLimitsConsumeBudget: true, usageOf: () => undefined } as const;

export function ocrTextOperation(transport: OcrTransport): AttemptOperation<OcrRequest, { text: string }> {
  return {
    ...OCR_ACCOUNTING,
    invoke: (source, request, attempt) => transport.recognizeText(source, request.image, request.options, attempt),
    describe: (_request, result) => ({ responseText: result?.text }),
  };
}

export function ocrLayoutOperation(transport: OcrTransport): AttemptOperation<OcrRequest, OcrLayoutPayload> {
  return {
    ...OCR_ACCOUNTING,
    invoke: (source, request, attempt) => transport.parseLayout(source, request.image, request.options, attempt),
    describe: (_request, result) => ({ responseText: result?.markdown }),
  };
}
