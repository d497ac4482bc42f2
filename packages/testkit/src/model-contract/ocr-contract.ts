/** The OcrModel contract: a MonkeyOCR-style upstream (`/ocr/text`, `/parse`, `/health` under the server root). */
import { RequestRejectedError, type OcrModel } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { CONTRACT_OCR_TEXT } from './loopback-upstream.js';
import { contractEnvironment, expectCallerAbort, recordingAttempt, rejection, transportCases, type MakeModel } from './support.js';

const IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

export function ocrModelContract(name: string, makeModel: MakeModel<OcrModel>): void {
  describe(`OcrModel contract: ${name}`, () => {
    const env = contractEnvironment(makeModel, (upstream) => ({ baseUrl: upstream.rootUrl }));

    transportCases(env, (model, attempt) => model.recognizeText(IMAGE, {}, attempt));

    it('recognizes text', async () => {
      const model = await env.make();
      expect(await model.recognizeText(IMAGE, {}, recordingAttempt())).toEqual({ text: CONTRACT_OCR_TEXT });
    });

    it('parseLayout classifies failures like every other operation', async () => {
      const model = await env.make();
      env.upstream.next({ kind: 'status', status: 400 });
      expect(await rejection(model.parseLayout(IMAGE, {}, recordingAttempt()))).toBeInstanceOf(RequestRejectedError);
    });

    it('checkHealth is true for a healthy server, false for a failing or silent one', async () => {
      const model = await env.make();
      expect(await model.checkHealth({ timeoutMs: 5000 })).toBe(true);
      env.upstream.next({ kind: 'status', status: 503 });
      expect(await model.checkHealth({ timeoutMs: 5000 })).toBe(false);
      env.upstream.next({ kind: 'hang' });
      expect(await model.checkHealth({ timeoutMs: 200 })).toBe(false);
    });

    it('checkHealth throws the caller’s abort instead of answering', async () => {
      const model = await env.make();
      const reason = new Error('shutting down');
      expectCallerAbort(await rejection(model.checkHealth({ signal: AbortSignal.abort(reason), timeoutMs: 5000 })), reason);
    });
  });
}
