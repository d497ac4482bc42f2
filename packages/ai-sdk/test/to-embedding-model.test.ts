/** toEmbeddingModel driven by the real `ai` 6 `embed` / `embedMany` over the loopback mock. */
import { AllSourcesExhausted } from '@pgw/client';
import { mockEmbedding } from '@pgw/mock-upstream';
import { embed, embedMany } from 'ai';
import { describe, expect, it } from 'vitest';
import { toEmbeddingModel } from '../src/index.js';
import { mockEmbeddingClient, useMock } from './helpers.js';

const env = useMock();

describe('toEmbeddingModel', () => {
  it('embedMany is one governed call: the vectors in order, usage and providerMetadata.pgw', async () => {
    const client = await mockEmbeddingClient(env.mock, 'e');
    try {
      const result = await embedMany({ model: toEmbeddingModel(client), values: ['alpha', 'beta', 'gamma'], providerOptions: { pgw: { tenantId: 't1' } } });
      expect(result.embeddings).toEqual(['alpha', 'beta', 'gamma'].map((text) => mockEmbedding(text, 8)));
      expect(result.usage.tokens).toBeGreaterThan(0);
      expect(result.providerMetadata?.['pgw']).toMatchObject({ sources: ['e'], callStats: { attempts: 1 } });
      expect(env.mock.counters('e').embeddings).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('embed of one value, and a failure is the library error itself, not retried by the SDK', async () => {
    const client = await mockEmbeddingClient(env.mock, 'e');
    try {
      expect((await embed({ model: toEmbeddingModel(client), value: 'alpha' })).embedding).toEqual(mockEmbedding('alpha', 8));
      env.mock.setSource('e', { steps: [{ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 }] });
      await expect(embed({ model: toEmbeddingModel(client), value: 'alpha' })).rejects.toBeInstanceOf(AllSourcesExhausted);
      expect(env.mock.counters('e').embeddings).toBe(4);
    } finally {
      await client.close();
    }
  });
});
