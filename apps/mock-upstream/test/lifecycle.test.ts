import { describe, expect, it } from 'vitest';
import { probeHandles, startMockUpstream, type SourceScript } from '../src/index.js';
import { chatBody, postJson, rawPost } from './helpers.js';

describe('mock lifecycle', () => {
  it('close() ends hanging and delayed requests and leaves no timer, socket or server open', async () => {
    const probe = probeHandles();
    const mock = await startMockUpstream({
      script: { sources: { stuck: { steps: [{ kind: 'hang' }, { kind: 'latency', ms: 60_000 }] } } },
    });
    const url = `${mock.baseUrl('stuck')}/chat/completions`;
    const hanging = rawPost(url, JSON.stringify(chatBody()));
    await expect.poll(() => mock.counters('stuck').inflight).toBe(1);
    const delayed = rawPost(url, JSON.stringify(chatBody()));
    await expect.poll(() => mock.counters('stuck').inflight).toBe(2);

    await mock.close();
    const [a, b] = await Promise.all([hanging.done, delayed.done]);
    expect(a.error).toBeInstanceOf(Error);
    expect(b.error).toBeInstanceOf(Error);
    expect(mock.counters('stuck').inflight).toBe(0);
    expect(await probe.leftovers()).toEqual([]);
  });

  it('a client abort frees the hanging exchange', async () => {
    const mock = await startMockUpstream({ script: { sources: { stuck: { otherwise: { kind: 'hang' } } } } });
    try {
      const controller = new AbortController();
      const pending = postJson(`${mock.baseUrl('stuck')}/chat/completions`, chatBody(), {});
      void pending.catch(() => undefined);
      const aborted = fetch(`${mock.baseUrl('stuck')}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(chatBody()),
        signal: controller.signal,
      });
      await expect.poll(() => mock.counters('stuck').inflight).toBe(2);
      controller.abort();
      await expect(aborted).rejects.toThrow();
      await expect.poll(() => mock.counters('stuck').inflight).toBe(1);
    } finally {
      await mock.close();
    }
  });

  it('counts requests per route and records lower-cased headers and parsed bodies', async () => {
    const mock = await startMockUpstream({ script: { sources: { good: {} } } });
    try {
      await (await postJson(`${mock.baseUrl('good')}/chat/completions`, chatBody(), { Authorization: 'Bearer sk-test', 'X-Trace': 't1' })).text();
      await (await postJson(`${mock.baseUrl('good')}/embeddings`, { input: ['a'] })).text();
      await (await fetch(`${mock.url}/good/health`)).text();
      const models = await fetch(`${mock.baseUrl('good')}/models`);
      expect(await models.json()).toEqual({ object: 'list', data: [{ id: 'good', object: 'model', owned_by: 'mock-upstream' }] });
      await (await fetch(`${mock.url}/good/nowhere`)).text();
      expect(mock.counters('good')).toEqual({ chat: 1, embeddings: 1, ocrText: 0, parse: 0, health: 1, models: 1, total: 5, inflight: 0 });
      const recorded = mock.requests('good');
      expect(recorded.map((r) => r.route)).toEqual(['chat', 'embeddings', 'health', 'models']);
      expect(recorded[0]?.headers['authorization']).toBe('Bearer sk-test');
      expect(recorded[0]?.headers['x-trace']).toBe('t1');
      expect(recorded[0]?.body).toEqual(chatBody());
      expect(recorded[0]?.method).toBe('POST');
      expect(recorded[0]?.clientPort).toBeGreaterThan(0);

      mock.reset();
      expect(mock.counters('good').total).toBe(0);
      expect(mock.requests('good')).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  it('an unknown source gets 404 model_not_found', async () => {
    const mock = await startMockUpstream({ script: { sources: { good: {} } } });
    try {
      const res = await postJson(`${mock.baseUrl('ghost')}/chat/completions`, chatBody());
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { message: 'model not found', code: 'model_not_found' } });
      expect(() => mock.counters('ghost')).toThrow(/ghost/);
    } finally {
      await mock.close();
    }
  });

  it('seeded failureRate is reproducible across runs and rewinds on reset', async () => {
    const flaky: SourceScript = {
      failureRate: 0.5,
      failureSteps: [{ kind: 'status', status: 500 }, { kind: 'status', status: 503 }],
    };
    async function run(seed: number): Promise<number[]> {
      const mock = await startMockUpstream({ seed, script: { sources: { flaky } } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 24; i++) {
          const res = await postJson(`${mock.baseUrl('flaky')}/chat/completions`, chatBody());
          await res.text();
          statuses.push(res.status);
        }
        mock.reset();
        const again = await postJson(`${mock.baseUrl('flaky')}/chat/completions`, chatBody());
        await again.text();
        expect(again.status).toBe(statuses[0]);
        return statuses;
      } finally {
        await mock.close();
      }
    }
    const first = await run(7);
    expect(await run(7)).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 500, 503]));
    expect(await run(8)).not.toEqual(first);
  });

  it('rejects an invalid script naming the key', async () => {
    await expect(startMockUpstream({ script: { sources: { bad: { failureRate: 2 } } } })).rejects.toThrow(/sources\.bad\.failureRate/);
    await expect(
      startMockUpstream({ script: { sources: { bad: { steps: [{ kind: 'explode' } as never] } } } }),
    ).rejects.toThrow(/sources\.bad\.steps\[0\]/);
  });

  it('setSource adds a source and replaces a script, rewinding its steps', async () => {
    const mock = await startMockUpstream({ script: { sources: { a: { steps: [{ kind: 'status', status: 500 }] } } } });
    try {
      const chat = async (source: string) => {
        const res = await postJson(`${mock.baseUrl(source)}/chat/completions`, chatBody());
        await res.text();
        return res.status;
      };
      expect(await chat('a')).toBe(500);
      expect(await chat('a')).toBe(200);
      mock.setSource('a', { steps: [{ kind: 'status', status: 502 }] });
      expect(await chat('a')).toBe(502);
      mock.setSource('b', {});
      expect(await chat('b')).toBe(200);
    } finally {
      await mock.close();
    }
  });
});
