/** The EmbeddingModel contract: an OpenAI-compatible `/embeddings` upstream, the transport cases and the answer's shape. */
import { RequestRejectedError, type EmbeddingModel } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { CONTRACT_EMBEDDING_DIM, CONTRACT_USAGE } from './loopback-upstream.js';
import { contractEnvironment, recordingAttempt, rejection, transportCases, type MakeModel } from './support.js';

const TEXTS = ['alpha', 'beta'];

export function embeddingModelContract(name: string, makeModel: MakeModel<EmbeddingModel>): void {
  describe(`EmbeddingModel contract: ${name}`, () => {
    const env = contractEnvironment(makeModel, (upstream) => ({ baseUrl: upstream.baseUrl }));

    transportCases(env, (model, attempt) => model.embed({ texts: TEXTS }, attempt));

    it('returns one vector per text, and reports the measured usage through onUsage before it returns', async () => {
      const model = await env.make();
      const attempt = recordingAttempt();
      let usagesAtReturn = -1;
      const result = await model.embed({ texts: TEXTS }, attempt).then((r) => {
        usagesAtReturn = attempt.usages.length;
        return r;
      });
      expect(result.vectors).toHaveLength(TEXTS.length);
      expect(result.vectors.every((vector) => vector.length === CONTRACT_EMBEDDING_DIM)).toBe(true);
      expect(result.usage).toMatchObject({ promptTokens: CONTRACT_USAGE.prompt_tokens, usageSource: 'measured' });
      expect(usagesAtReturn).toBeGreaterThan(0);
    });

    it('a 200 JSON error body is classified like the HTTP error it stands for', async () => {
      const model = await env.make();
      env.upstream.next({ kind: 'in_band', error: { message: 'in-band', type: 'invalid_request_error' } });
      expect(await rejection(model.embed({ texts: TEXTS }, recordingAttempt()))).toBeInstanceOf(RequestRejectedError);
    });
  });
}
