/**
 * Tool calling end to end: GatewayClient.fromEnv against the loopback mock — tools on the wire,
 * parsed and validated calls, re-asks, streamed fragments, the cache, telemetry rows, and runTools.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CallDeadlineExceeded, GatewayClient, ResultInvalidError, StreamInterruptedError, ToolExecutionError } from '../src/index.js';
import type { ChatDelta, RunnableTool } from '../src/index.js';
import type { SourceScript } from '@pgw/mock-upstream';
import { BACKENDS, MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { readSqlite } from './helpers/stores.js';

const ASK = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
const weatherInput = z.object({ city: z.string() });
const TOOLS = { weather: { description: 'Current weather of a city', parameters: weatherInput } };
const dir = mkdtempSync(join(tmpdir(), 'pgw-client-tools-'));

const fixture = MockFixture.use();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Backend = (typeof BACKENDS)[number];

async function withClient<T>(
  source: string,
  keys: Record<string, string>,
  run: (client: GatewayClient, scope: string) => Promise<T>,
  options: { backend?: Backend; fields?: Record<string, string> } = {},
): Promise<T> {
  const scope = uniqueScope('tools');
  const env = {
    ...(options.backend ?? BACKENDS[0]).env,
    ...fixture.sourceKeys(scope, source, options.fields),
    ...scopeKeys(scope, { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05', CACHE__NAMESPACE: scope, ...keys }),
  };
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
  try {
    return await run(client, scope);
  } finally {
    await client.close();
  }
}

const lastBody = (source: string) => fixture.mock.requests(source).at(-1)!.body as Record<string, unknown>;

describe('chat with tools', () => {
  it('sends tools, tool choice and the parallel flag; answers one validated call with finishReason tool_calls', async () => {
    const source = fixture.source('one', { steps: [{ kind: 'tool_calls', calls: [{ id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] }] });
    await withClient(source, {}, async (client) => {
      const response = await client.chat(ASK, { tools: TOOLS, toolChoice: 'required', parallelToolCalls: false });
      expect(response.finishReason).toBe('tool_calls');
      expect(response.content).toBe('');
      expect(response.toolCalls).toEqual([{ id: 'c1', name: 'weather', arguments: '{"city":"Paris"}', input: { city: 'Paris' } }]);
      const body = lastBody(source);
      expect(body['tools']).toEqual([
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Current weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ]);
      expect(body['tool_choice']).toBe('required');
      expect(body['parallel_tool_calls']).toBe(false);
    });
  });

  it('answers parallel calls in order; a plain JSON Schema tool gets its input parsed, not validated', async () => {
    const calls = [
      { id: 'a', name: 'weather', arguments: { city: 'Paris' } },
      { id: 'b', name: 'time', arguments: '{"zone":"CET"}' },
    ];
    const source = fixture.source('parallel', { steps: [{ kind: 'tool_calls', calls }] });
    const tools = { ...TOOLS, time: { parameters: { type: 'object', properties: { zone: { type: 'string' } } } } };
    await withClient(source, {}, async (client) => {
      const response = await client.chat(ASK, { tools, toolChoice: { name: 'time' } });
      expect(response.toolCalls?.map((c) => [c.id, c.name, c.input])).toEqual([
        ['a', 'weather', { city: 'Paris' }],
        ['b', 'time', { zone: 'CET' }],
      ]);
      expect(lastBody(source)['tool_choice']).toEqual({ type: 'function', function: { name: 'time' } });
    });
  });

  it('re-asks on malformed arguments (structured retries > 0), feeding the issue back as a tool message', async () => {
    const source = fixture.source('reask', {
      steps: [
        { kind: 'tool_calls', calls: [{ id: 'bad', name: 'weather', arguments: '{"city": "Par' }] },
        { kind: 'tool_calls', calls: [{ id: 'good', name: 'weather', arguments: { city: 'Paris' } }] },
      ],
    });
    await withClient(source, { STRUCTURED__MAX_RETRIES: '1' }, async (client) => {
      const response = await client.chat(ASK, { tools: TOOLS });
      expect(response.toolCalls?.[0]).toMatchObject({ id: 'good', input: { city: 'Paris' } });
      expect(response.callStats.attempts).toBe(2);
      const messages = lastBody(source)['messages'] as Array<Record<string, unknown>>;
      expect(messages.slice(1).map((m) => m['role'])).toEqual(['assistant', 'tool']);
      expect(messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'bad' });
      expect(messages[2]!['content']).toContain('not valid JSON');
    });
  });

  it('sends native json_schema output next to tools; an answer without calls is judged by the schema', async () => {
    const source = fixture.source('native', { content: '{"wear":"a light jacket"}' });
    await withClient(source, { STRUCTURED__STRATEGY: 'json_schema' }, async (client) => {
      const response = await client.chat(ASK, { tools: TOOLS, structured: z.object({ wear: z.string() }) });
      expect(response.parsed).toEqual({ wear: 'a light jacket' });
      expect(response.toolCalls).toBeUndefined();
      const body = lastBody(source);
      expect(body['response_format']).toMatchObject({ type: 'json_schema', json_schema: { name: 'response' } });
      expect(body['tools']).toHaveLength(1);
    }, { fields: { PROVIDER: 'openai' } });
  });

  it('fails with ResultInvalidError when arguments do not validate and no re-ask is allowed', async () => {
    const source = fixture.source('invalid', { steps: [{ kind: 'tool_calls', calls: [{ name: 'weather', arguments: { town: 'Paris' } }] }] });
    await withClient(source, { STRUCTURED__MAX_RETRIES: '0' }, async (client) => {
      const { error } = await outcome(() => client.chat(ASK, { tools: TOOLS }));
      expect(error).toBeInstanceOf(ResultInvalidError);
      expect((error as ResultInvalidError).issues.join(' ')).toContain('city');
      expect(fixture.mock.counters(source).chat).toBe(1);
    });
  });

  it('refuses bad tool options with a TypeError naming the option: nothing is sent', async () => {
    const source = fixture.source('refuse');
    await withClient(source, {}, async (client) => {
      await expect(client.chat(ASK, { tools: { 'bad name': { parameters: weatherInput } } })).rejects.toThrow(/chat\(tools\) has a tool named "bad name"/);
      await expect(client.chat(ASK, { tools: { w: { parameters: { type: 'string' } } } })).rejects.toThrow(/chat\(tools\.w\)\.parameters/);
      await expect(client.chat(ASK, { toolChoice: 'auto' })).rejects.toThrow(/chat\(toolChoice\) needs chat\(tools\)/);
      await expect(client.chat(ASK, { tools: TOOLS, toolChoice: { name: 'nope' } })).rejects.toThrow(TypeError);
      const orphan = [...ASK, { role: 'tool' as const, tool_call_id: 'x', content: '1' }];
      await expect(client.chat(orphan)).rejects.toThrow(/tool_call_id 'x' answers no tool call/);
      expect(fixture.mock.counters(source).chat).toBe(0);
    });
  });

  it.each(BACKENDS)('serves an identical tools call from the cache on $name backends, inputs re-derived', async (backend) => {
    const source = fixture.source('cached', { steps: [{ kind: 'tool_calls', calls: [{ id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] }] });
    await withClient(
      source,
      { CACHE__ENABLED: 'true' },
      async (client) => {
        const first = await client.chat(ASK, { tools: TOOLS });
        const second = await client.chat(ASK, { tools: TOOLS });
        expect(second.cached).toBe(true);
        expect(second.toolCalls).toEqual(first.toolCalls);
        expect(second.finishReason).toBe('tool_calls');
        await client.chat(ASK, { tools: TOOLS, toolChoice: 'required' }); // another key
        expect(fixture.mock.counters(source).chat).toBe(2);
      },
      { backend },
    );
  });

  it('records the number of tool calls in the telemetry rows', async () => {
    const calls = [
      { name: 'weather', arguments: { city: 'Paris' } },
      { name: 'weather', arguments: { city: 'Oslo' } },
    ];
    const source = fixture.source('rows', { steps: [{ kind: 'tool_calls', calls }] });
    const path = join(dir, 'rows.sqlite');
    const scope = await withClient(source, {}, async (client, scope) => (await client.chat(ASK, { tools: TOOLS }), scope), {
      backend: { ...BACKENDS[0], env: { ...BACKENDS[0].env, PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: path } } as unknown as Backend,
    });
    expect(readSqlite(path, 'SELECT event_kind, tool_calls FROM llm_calls WHERE scope = ?', scope)).toEqual([{ event_kind: 'attempt', tool_calls: 2 }]);
  });
});

describe('chatStream with tools', () => {
  async function collect(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
    const deltas: ChatDelta[] = [];
    for await (const delta of stream) deltas.push(delta);
    return deltas;
  }

  it('yields interleaved fragments and assembles the calls in the response', async () => {
    const calls = [
      { id: 'a', name: 'weather', arguments: { city: 'Paris "the city of light"' } },
      { id: 'b', name: 'weather', arguments: { city: 'Oslo' } },
    ];
    const source = fixture.source('stream', { steps: [{ kind: 'tool_calls', calls, interleave: true, chunkChars: 4 }] });
    await withClient(source, {}, async (client) => {
      const stream = client.chatStream(ASK, { tools: TOOLS });
      const fragments = (await collect(stream)).flatMap((d) => d.toolCalls ?? []);
      expect(fragments.slice(0, 4).map((f) => f.index)).toEqual([0, 1, 0, 1]);
      expect(fragments[0]).toMatchObject({ index: 0, id: 'a', name: 'weather' });
      const response = await stream.response;
      expect(response.toolCalls?.map((c) => c.input)).toEqual([{ city: 'Paris "the city of light"' }, { city: 'Oslo' }]);
      expect(response.finishReason).toBe('tool_calls');
    });
  });

  it('yields the assembled calls in one delta from a STREAM=false source', async () => {
    const source = fixture.source('whole', { steps: [{ kind: 'tool_calls', calls: [{ id: 'w', name: 'weather', arguments: { city: 'Rome' } }] }] });
    await withClient(
      source,
      {},
      async (client) => {
        const deltas = await collect(client.chatStream(ASK, { tools: TOOLS }));
        expect(deltas).toEqual([{ toolCalls: [{ index: 0, id: 'w', name: 'weather', arguments: '{"city":"Rome"}' }] }]);
        expect(lastBody(source)['stream']).toBe(false);
      },
      { fields: { STREAM: 'false' } },
    );
  });

  it('does not re-ask an invalid streamed call (its fragments are out): ResultInvalidError after one request', async () => {
    const source = fixture.source('noreask', {
      steps: [
        { kind: 'tool_calls', calls: [{ name: 'weather', arguments: '{"city": 12' }] },
        { kind: 'tool_calls', calls: [{ name: 'weather', arguments: { city: 'Paris' } }] },
      ],
    });
    await withClient(source, { STRUCTURED__MAX_RETRIES: '2' }, async (client) => {
      const { error } = await outcome(() => client.chatStream(ASK, { tools: TOOLS }).response);
      expect(error).toBeInstanceOf(ResultInvalidError);
      expect(fixture.mock.counters(source).chat).toBe(1);
    });
  });

  it('counts a tool-call fragment as the first token: a stream cut after it is not retried nor failed over', async () => {
    const cut = fixture.source('cut', { steps: [{ kind: 'tool_calls', calls: [{ name: 'weather', arguments: { city: 'Paris' } }], truncateAfter: 2 }] });
    const spare = fixture.source('spare');
    const scope = uniqueScope('tools');
    const env = {
      ...BACKENDS[0].env,
      ...fixture.sourceKeys(scope, cut),
      ...fixture.sourceKeys(scope, spare),
      ...scopeKeys(scope, { SELECTOR: 'ordered', SOURCES: `${cut},${spare}`, RETRY__BACKOFF_BASE_S: '0.01' }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      const stream = client.chatStream(ASK, { tools: TOOLS });
      const { error } = await outcome(() => stream.response);
      expect(error).toBeInstanceOf(StreamInterruptedError);
      expect(error).toMatchObject({ sourceName: cut, partialContent: '' });
      expect(fixture.mock.counters(cut).chat).toBe(1);
      expect(fixture.mock.counters(spare).chat).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('runTools', () => {
  const finalAnswer = (label: string, steps: SourceScript['steps'] = []) =>
    fixture.source(label, { steps, content: 'It is 21 °C and sunny in Paris.' });
  const weatherCall = { kind: 'tool_calls' as const, calls: [{ id: 'w1', name: 'weather', arguments: { city: 'Paris' } }] };

  it('runs one tool round to a final answer; sums usage; every step shares one logicalCallId', async () => {
    const source = finalAnswer('loop', [weatherCall]);
    const seen: unknown[] = [];
    const tools: Record<string, RunnableTool> = {
      weather: { ...TOOLS.weather, execute: async (input: { city: string }, { toolCallId }) => (seen.push([input, toolCallId]), { tempC: 21 }) },
    };
    await withClient(source, {}, async (client) => {
      const run = await client.runTools(ASK, { tools });
      expect(run.finishedBy).toBe('answer');
      expect(run.response.content).toBe('It is 21 °C and sunny in Paris.');
      expect(seen).toEqual([[{ city: 'Paris' }, 'w1']]);
      expect(run.steps.map((s) => s.toolResults.map((r) => r.content))).toEqual([['{"tempC":21}'], []]);
      expect(run.usage.promptTokens).toBe(run.steps[0]!.response.usage.promptTokens + run.steps[1]!.response.usage.promptTokens);
      expect(run.steps.map((s) => s.response.callStats.logicalCallId)).toEqual([run.logicalCallId, run.logicalCallId]);
      const messages = lastBody(source)['messages'] as Array<Record<string, unknown>>;
      expect(messages.slice(1)).toEqual([
        { role: 'assistant', content: null, tool_calls: [{ id: 'w1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'w1', content: '{"tempC":21}' },
      ]);
    });
  });

  it('reports a throwing tool to the model by default, and ends the loop with onToolError throw', async () => {
    const tools = { weather: { ...TOOLS.weather, execute: () => Promise.reject(new Error('station offline')) } };
    await withClient(finalAnswer('report', [weatherCall]), {}, async (client) => {
      const run = await client.runTools(ASK, { tools });
      expect(run.steps[0]!.toolResults[0]).toMatchObject({ error: 'station offline', content: 'Error: station offline' });
      expect(run.finishedBy).toBe('answer');
    });
    const source = finalAnswer('throw', [weatherCall]);
    await withClient(source, {}, async (client) => {
      const { error } = await outcome(() => client.runTools(ASK, { tools, onToolError: 'throw' }));
      expect(error).toBeInstanceOf(ToolExecutionError);
      expect(error).toMatchObject({ toolName: 'weather', toolCallId: 'w1' });
      expect(fixture.mock.counters(source).chat).toBe(1);
    });
  });

  it('treats a custom tool call it has no tool for like any unknown tool: fed back, re-asked, never run', async () => {
    const shell = { id: 's1', name: 'weather', arguments: 'rm -rf /tmp/cache', custom: true };
    const source = finalAnswer('custom', [{ kind: 'tool_calls', content: 'Cleaning up first.', calls: [shell] }]);
    let runs = 0;
    const tools = { weather: { ...TOOLS.weather, execute: () => ++runs } };
    await withClient(source, {}, async (client) => {
      const run = await client.runTools(ASK, { tools });
      expect(run.finishedBy).toBe('answer');
      expect(runs).toBe(0);
      const messages = lastBody(source)['messages'] as Array<Record<string, unknown>>;
      expect(messages.slice(1)).toEqual([
        { role: 'assistant', content: 'Cleaning up first.', tool_calls: [{ id: 's1', type: 'custom', custom: { name: 'weather', input: 'rm -rf /tmp/cache' } }] },
        { role: 'tool', tool_call_id: 's1', content: expect.stringContaining("no custom tool named 'weather' was offered") },
      ]);
    });
    await withClient(finalAnswer('custom-strict', [{ kind: 'tool_calls', calls: [shell] }]), { STRUCTURED__MAX_RETRIES: '0' }, async (client) => {
      const { error } = await outcome(() => client.runTools(ASK, { tools }));
      expect(error).toBeInstanceOf(ResultInvalidError);
      expect((error as ResultInvalidError).issues).toEqual(["tool call s1 (weather): no custom tool named 'weather' was offered"]);
    });
  });

  it('reads a custom tool call of a plain chat as what it is', async () => {
    const source = fixture.source('custom-plain', { steps: [{ kind: 'tool_calls', calls: [{ id: 's1', name: 'shell', arguments: 'date', custom: true }] }] });
    await withClient(source, {}, async (client) => {
      const response = await client.chat(ASK);
      expect(response.toolCalls).toEqual([{ id: 's1', type: 'custom', name: 'shell', arguments: 'date', input: 'date' }]);
    });
  });

  it('stops at maxSteps with the unrun calls in the last response', async () => {
    const source = fixture.source('steps', { otherwise: weatherCall });
    let runs = 0;
    const tools = { weather: { ...TOOLS.weather, execute: () => ++runs } };
    await withClient(source, {}, async (client) => {
      const run = await client.runTools(ASK, { tools, maxSteps: 3 });
      expect(run.finishedBy).toBe('max_steps');
      expect(run.steps).toHaveLength(3);
      expect(runs).toBe(2);
      expect(run.response.toolCalls).toHaveLength(1);
      expect(fixture.mock.counters(source).chat).toBe(3);
    });
  });

  it('ends with CallDeadlineExceeded when the deadline expires mid-loop; the running tool sees its abort and settles first', async () => {
    const source = finalAnswer('deadline', [weatherCall]);
    let settled = false;
    let aborted = false;
    const tools = {
      weather: {
        ...TOOLS.weather,
        execute: (_input: unknown, { signal }: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              aborted = true;
              // Cleanup that takes a moment: the loop must wait for it.
              setTimeout(() => {
                settled = true;
                reject(signal.reason);
              }, 50);
            });
          }),
      },
    };
    await withClient(source, {}, async (client) => {
      const { error } = await outcome(() => client.runTools(ASK, { tools, callDeadlineMs: 400 }));
      expect(error).toBeInstanceOf(CallDeadlineExceeded);
      expect((error as CallDeadlineExceeded).deadlineMs).toBe(400);
      expect(aborted).toBe(true);
      expect(settled).toBe(true);
      expect(fixture.mock.counters(source).chat).toBe(1);
    });
  });

  it('aborts running tools on the caller abort and rejects with the abort', async () => {
    const source = finalAnswer('abort', [weatherCall]);
    const caller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const tools = {
      weather: {
        ...TOOLS.weather,
        execute: (_input: unknown, { signal }: { signal: AbortSignal }) => {
          toolSignal = signal;
          const settled = new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          caller.abort();
          return settled;
        },
      },
    };
    await withClient(source, {}, async (client) => {
      const { error } = await outcome(() => client.runTools(ASK, { tools, signal: caller.signal }));
      expect((error as Error).name).toBe('AbortError');
      expect(toolSignal?.aborted).toBe(true);
    });
  });
});
