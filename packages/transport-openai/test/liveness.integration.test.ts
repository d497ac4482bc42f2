import { TransientError, type ChatResult } from '@pgw/core';
import type { LivenessOptions } from '@pgw/http';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptContext, harness, scriptedSource, thrown } from './helpers.js';

const messages = [{ role: 'user' as const, content: 'hi' }];
const words = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: {} } });
});

afterAll(async () => {
  await mock.close();
});

/** Runs one streamed chat under the given liveness limits and closes the transport afterwards. */
async function streamed(
  script: Parameters<typeof scriptedSource>[1],
  liveness: LivenessOptions,
  timeoutMs = 10_000,
): Promise<{ result?: ChatResult; error?: unknown; ctx: ReturnType<typeof attemptContext> }> {
  const transport = harness({ liveness });
  const source = scriptedSource(mock, script, { timeoutMs });
  const ctx = attemptContext();
  try {
    const outcome = await transport.chat(source, { messages, sampling: {}, stream: true }, ctx).then(
      (result): { result?: ChatResult; error?: unknown } => ({ result }),
      (error: unknown) => ({ error }),
    );
    await expect.poll(() => mock.counters(source.name).inflight).toBe(0);
    return { ...outcome, ctx };
  } finally {
    await transport.close();
  }
}

describe('stream liveness', () => {
  it('fails a stream whose first token is late (limit 100 ms, upstream 1000 ms)', async () => {
    const { error, ctx } = await streamed({ content: 'late answer', ttftMs: 1000 }, { firstTokenMs: 100 });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'stalled_stream' });
    expect((error as Error).message).toContain('first token');
    expect(ctx.deltas).toEqual([]);
  });

  it('fails a stream whose tokens stop coming (gap limit 100 ms, upstream gap 1000 ms)', async () => {
    const { error, ctx } = await streamed({ content: 'one two three', interTokenMs: 1000 }, { interTokenMs: 100 });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'stalled_stream' });
    expect((error as Error).message).toContain('no token for 100 ms');
    expect(ctx.deltas).toEqual([{ content: 'one ' }]);
  });

  it('fails a live stream that runs past the total (liveness.totalMs 300, 40 tokens 50 ms apart)', async () => {
    const { error, ctx } = await streamed({ content: words(40, 'w'), interTokenMs: 50 }, { totalMs: 300, interTokenMs: 1000 });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'timeout' });
    expect(ctx.deltas.length).toBeGreaterThan(0);
  });

  it('the source timeoutMs bounds a stream too', async () => {
    const { error } = await streamed({ content: words(40, 'w'), interTokenMs: 50 }, { interTokenMs: 1000 }, 300);
    expect(error).toMatchObject({ transientKind: 'timeout' });
  });

  it('keeps a stream alive on reasoning deltas alone, without mixing them into content', async () => {
    const reasoning = words(12, 'think');
    const { result, error, ctx } = await streamed(
      { reasoning, content: 'final answer', interTokenMs: 50 },
      // 10× the token gap: a loaded machine must not turn a live stream into a stall.
      { firstTokenMs: 500, interTokenMs: 500 },
    );
    expect(error).toBeUndefined();
    expect(result?.content).toBe('final answer');
    expect(result?.content).not.toContain('think');
    expect(result?.reasoningContent).toBe(reasoning);
    expect(result?.thinkingObservation).toBe('observed');
    expect(ctx.deltas.filter((d) => d.reasoningContent !== undefined)).toHaveLength(12);
    expect(ctx.deltas.every((d) => d.content === undefined || !d.content.includes('think'))).toBe(true);
  });

  it('lets a slow but live stream finish and reports its time to first token', async () => {
    const { result } = await streamed({ content: 'a b c', ttftMs: 50, interTokenMs: 50 }, { firstTokenMs: 1000, interTokenMs: 1000 });
    expect(result?.content).toBe('a b c');
    expect(result?.ttftMs).toBeGreaterThanOrEqual(40);
  });
});
