import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockEmbedding, startMockUpstream, type MockUpstream } from '../src/index.js';
import { jsonBody, postJson } from './helpers.js';

let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: { emb: { embeddingDim: 4 } } } });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const url = () => `${mock.baseUrl('emb')}/embeddings`;

describe('embeddings', () => {
  it('returns one deterministic vector per input, with usage', async () => {
    const body = await jsonBody(await postJson(url(), { model: 'emb-model', input: ['alpha beta', 'gamma'] }));
    expect(body.model).toBe('emb-model');
    expect(body.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(body.data.map((d: { index: number; object: string }) => [d.index, d.object])).toEqual([
      [0, 'embedding'],
      [1, 'embedding'],
    ]);
    expect(body.data[0].embedding).toEqual(mockEmbedding('alpha beta', 4));
    expect(body.data[1].embedding).toHaveLength(4);
    expect(body.data[0].embedding).not.toEqual(body.data[1].embedding);
  });

  it('accepts a bare string input', async () => {
    const body = await jsonBody(await postJson(url(), { input: 'alpha' }));
    expect(body.data).toHaveLength(1);
    expect(body.data[0].embedding).toEqual(mockEmbedding('alpha', 4));
  });

  it('wrong_dim returns vectors of the scripted wrong dimension', async () => {
    mock.setSource('emb', { embeddingDim: 4, steps: [{ kind: 'wrong_dim', dim: 3 }] });
    const body = await jsonBody(await postJson(url(), { input: ['a', 'b'] }));
    expect(body.data.map((d: { embedding: number[] }) => d.embedding.length)).toEqual([3, 3]);
    const next = await jsonBody(await postJson(url(), { input: ['a'] }));
    expect(next.data[0].embedding).toHaveLength(4);
  });

  it('rejects a non-string input with 400', async () => {
    const res = await postJson(url(), { input: [1, 2] });
    expect(res.status).toBe(400);
  });

  it('malformed wrong_shape has no data array', async () => {
    mock.setSource('emb', { steps: [{ kind: 'malformed', variant: 'wrong_shape' }] });
    const body = await jsonBody(await postJson(url(), { input: ['a'] }));
    expect(Array.isArray(body.data)).toBe(false);
  });
});
