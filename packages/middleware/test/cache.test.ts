import { InMemoryCache } from '@pgw/backend-memory';
import { TransientError, type Cache, type ChatMessage } from '@pgw/core';
import { deferred } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chatCacheKey, messagesDigest, type GatewayChatRequest } from './helpers/internals.js';
import { chatResult } from './helpers/fakes.js';
import { chatHarness, HI } from './helpers/harness.js';

const KEY_SCOPE = { model: 'm', namespace: 'ns', salt: 's', isolation: 'tenant' } as const;
const request = (overrides: Partial<GatewayChatRequest> = {}): GatewayChatRequest => ({ messages: HI, sampling: {}, ...overrides });

describe('cache key', () => {
  it('is stable and ignores the key order of sampling parameters', () => {
    const a = chatCacheKey(request({ sampling: { temperature: 0.2, max_tokens: 10 } }), KEY_SCOPE);
    const b = chatCacheKey(request({ sampling: { max_tokens: 10, temperature: 0.2 } }), KEY_SCOPE);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(b);
  });

  it('changes with model, namespace, tenant, isolation, salt, sampling, effort, messages and the structured schema', () => {
    const base = chatCacheKey(request(), KEY_SCOPE);
    const variants = [
      chatCacheKey(request(), { ...KEY_SCOPE, model: 'm2' }),
      chatCacheKey(request(), { ...KEY_SCOPE, namespace: 'tenant-b' }),
      chatCacheKey(request(), { ...KEY_SCOPE, salt: 's2' }),
      chatCacheKey(request(), { ...KEY_SCOPE, tenantId: 'acme' }),
      chatCacheKey(request(), { ...KEY_SCOPE, isolation: 'namespace' }),
      chatCacheKey(request({ sampling: { temperature: 1 } }), KEY_SCOPE),
      chatCacheKey(request({ reasoningEffort: 'low' }), KEY_SCOPE),
      chatCacheKey(request({ reasoningEffort: 'max' }), KEY_SCOPE),
      chatCacheKey(request({ messages: [{ role: 'user', content: 'hi!' }] }), KEY_SCOPE),
      chatCacheKey(request({ structured: z.object({ n: z.number() }) }), KEY_SCOPE),
      chatCacheKey(request({ structured: z.object({ n: z.string() }) }), KEY_SCOPE),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('ignores the tenant under namespace isolation', () => {
    const shared = { ...KEY_SCOPE, isolation: 'namespace' } as const;
    expect(chatCacheKey(request(), { ...shared, tenantId: 'acme' })).toBe(chatCacheKey(request(), { ...shared, tenantId: 'globex' }));
    expect(chatCacheKey(request(), { ...KEY_SCOPE, tenantId: 'acme' })).not.toBe(chatCacheKey(request(), { ...KEY_SCOPE, tenantId: 'globex' }));
  });

  it('changes with tools, tool choice, the parallel flag and a tool conversation; unchanged without tools', () => {
    const weather = { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    const base = chatCacheKey(request(), KEY_SCOPE);
    expect(chatCacheKey(request({ toolSchemas: {} }), KEY_SCOPE)).toBe(base);
    const call = (args: string): ChatMessage[] => [
      ...HI,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'weather', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c', content: '21' },
    ];
    const variants = [
      chatCacheKey(request({ tools: [weather] }), KEY_SCOPE),
      chatCacheKey(request({ tools: [{ ...weather, description: 'd' }] }), KEY_SCOPE),
      chatCacheKey(request({ tools: [weather], toolChoice: 'required' }), KEY_SCOPE),
      chatCacheKey(request({ tools: [weather], toolChoice: { name: 'weather' } }), KEY_SCOPE),
      chatCacheKey(request({ tools: [weather], parallelToolCalls: false }), KEY_SCOPE),
      chatCacheKey(request({ messages: call('{"city":"Paris"}') }), KEY_SCOPE),
      chatCacheKey(request({ messages: call('{"city":"Oslo"}') }), KEY_SCOPE),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('digests multimodal parts first: different payloads differ, and raw payloads never enter the digest input', () => {
    const withImage = (url: string): ChatMessage[] => [
      { role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url } }] },
    ];
    const withAudio = (data: string): ChatMessage[] => [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data, format: 'wav' } }] }];
    expect(messagesDigest(withImage('https://x/1.png'))).not.toBe(messagesDigest(withImage('https://x/2.png')));
    expect(messagesDigest(withAudio('AAAA'))).not.toBe(messagesDigest(withAudio('AAAB')));
    // A URL crafted to look like the text of another part does not collide with it.
    const crafted: ChatMessage[] = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'what is this' } }] }];
    const text: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'what is this' }] }];
    expect(messagesDigest(crafted)).not.toBe(messagesDigest(text));
  });
});

describe('cache middleware', () => {
  it('a hit returns the stored answer as cached, costs nothing, skips the transport and writes a cache_hit row', async () => {
    const cache = new InMemoryCache();
    const h = chatHarness([chatResult('first answer')], { cache });
    const miss = await h.run();
    expect(miss.cached).toBe(false);
    const hit = await h.run();
    expect(hit).toMatchObject({ content: 'first answer', cached: true, costUsd: 0, source: 'a' });
    expect(hit.callStats.attempts).toBe(0);
    expect(h.script.calls).toHaveLength(1);
    const rows = h.recorder.kind('cache_hit');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'ok', source: 'a', logicalCallId: hit.callStats.logicalCallId });
  });

  it('bypass neither reads nor writes', async () => {
    const calls: string[] = [];
    const cache: Cache = {
      get: async () => {
        calls.push('get');
        return undefined;
      },
      set: async () => {
        calls.push('set');
      },
    };
    const h = chatHarness([chatResult()], { cache });
    await h.run({}, { cacheBypass: true });
    expect(calls).toEqual([]);
  });

  it('stores only complete successes', async () => {
    const cache = new InMemoryCache();
    const failing = chatHarness([], { cache, settings: { retry: { maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 } } }, new TransientError({ message: 'truncated', transientKind: 'truncated' }));
    await expect(failing.run()).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
    const next = chatHarness([chatResult('fresh')], { cache });
    await expect(next.run()).resolves.toMatchObject({ content: 'fresh', cached: false });
  });

  it('cache errors degrade to one warning per kind and the call proceeds', async () => {
    const cache: Cache = {
      get: async () => {
        throw new Error('redis get down');
      },
      set: async () => {
        throw new Error('redis set down');
      },
    };
    const h = chatHarness([chatResult(), chatResult()], { cache });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(h.warnings.filter((w) => w.startsWith('cache get'))).toHaveLength(1);
    expect(h.warnings.filter((w) => w.startsWith('cache set'))).toHaveLength(1);
  });

  it('an entry that does not decode is a miss with one warning', async () => {
    const cache: Cache = { get: async () => '{not json', set: async () => undefined };
    const h = chatHarness([chatResult('live')], { cache });
    await expect(h.run()).resolves.toMatchObject({ content: 'live', cached: false });
    expect(h.warnings.filter((w) => w.startsWith('cache decode'))).toHaveLength(1);
  });

  it('a structured hit re-derives the parsed value from the stored answer', async () => {
    const cache = new InMemoryCache();
    const schema = z.object({ n: z.number().transform((n) => n * 2) });
    const h = chatHarness([chatResult('{"n": 21}')], { cache });
    const fresh = await h.run({ structured: schema });
    const hit = await h.run({ structured: schema });
    expect(fresh.parsed).toEqual({ n: 42 });
    expect(hit).toMatchObject({ cached: true, parsed: { n: 42 } });
  });

  it('a cancelled call does not wait for a hanging cache', async () => {
    const entered = deferred();
    const cache: Cache = {
      get: () => {
        entered.resolve();
        return new Promise(() => undefined);
      },
      set: async () => undefined,
    };
    const h = chatHarness([chatResult()], { cache });
    const controller = new AbortController();
    const call = h.run({}, { signal: controller.signal });
    await entered.promise;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.script.calls).toHaveLength(0);
  });
});
