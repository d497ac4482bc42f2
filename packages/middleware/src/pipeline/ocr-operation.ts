import type { OcrLayoutPayload, OcrModel, OcrOptions } from '@pgw/core';
import type { AttemptOperation } from './operation.js';

export interface OcrRequest {
  image: Uint8Array;
  options: OcrOptions;
}

/** OCR has no tokens: permits always settle 0 (S6); every failure consumes the attempt budget. */
const OCR_ACCOUNTING = { tokenAccounting: 'none', rateLimitsConsumeBudget: true, usageOf: () => undefined } as const;

export function ocrTextOperation(): AttemptOperation<OcrRequest, { text: string }, OcrModel> {
  return {
    ...OCR_ACCOUNTING,
    invoke: (source, request, attempt) => source.model.recognizeText(request.image, request.options, attempt),
    describe: (_request, result) => ({ responseText: result?.text }),
  };
}

export function ocrLayoutOperation(): AttemptOperation<OcrRequest, OcrLayoutPayload, OcrModel> {
  return {
    ...OCR_ACCOUNTING,
    invoke: (source, request, attempt) => source.model.parseLayout(request.image, request.options, attempt),
    describe: (_request, result) => ({ responseText: result?.markdown }),
  };
}
