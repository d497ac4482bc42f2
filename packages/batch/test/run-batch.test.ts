/** runBatch on the sqlite engine (a real file) against the loopback mock. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchJobNotFoundError, checkBatchInput, errorFileOf, estimateJob, resumeBatch, runBatch, SqliteBatchEngine, writeBatchOutput } from '../src/index.js';
import type { CallInfo, JobProgress } from '@pgw/core';
import { chatClient, chatLines, embeddingClient, mockSource, ocrClient, useMock, useTempDirs } from './helpers.js';

const fixture = useMock();
const tempDir = useTempDirs();

const readLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);

describe('runBatch on sqlite', () => {
  it('runs chat, embedding and OCR lines as batch-class calls and writes OpenAI batch output', async () => {
    const dir = tempDir();
    const chatSource = mockSource(fixture.mock, 'chat', { content: 'answer' });
    const embedSource = mockSource(fixture.mock, 'embed', { embeddingDim: 3 });
    const ocrSource = mockSource(fixture.mock, 'ocr', { ocrText: 'page text' });
    const page = join(dir, 'page.png');
    writeFileSync(page, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const calls: CallInfo[] = [];
    const [chat, embeddings, ocr] = [await chatClient(fixture.mock, chatSource, {}, [{ onCallStart: ({ call }) => void calls.push(call) }]), await embeddingClient(fixture.mock, embedSource), await ocrClient(fixture.mock, ocrSource)];
    const engine = new SqliteBatchEngine({ dir });
    try {
      const lines = [
        ...chatLines(3).split('\n'),
        JSON.stringify({ custom_id: 'emb', method: 'POST', url: '/v1/embeddings', body: { model: 'mock-model', input: ['a', 'b'] } }),
        JSON.stringify({ custom_id: 'ocr', url: '/pgw/v1/ocr', body: { file: page, mode: 'text' } }),
        JSON.stringify({ custom_id: 'missing-file', url: '/pgw/v1/ocr', body: { file: join(dir, 'absent.png') } }),
      ];
      const summary = await runBatch({ chat, embeddings, ocr }, lines, { engine, job: 'mixed', tenantId: 'acme', concurrency: 2 });
      expect(summary).toMatchObject({ job: 'mixed', status: 'completed', total: 6, done: 5, failed: 1, inFlight: 0 });
      const out = join(dir, 'out.jsonl');
      expect(await writeBatchOutput(engine, 'mixed', { out })).toEqual({ results: 5, errors: 1 });
      const results = readLines(out);
      expect(results.map((line) => line['custom_id'])).toEqual(['item-0', 'item-1', 'item-2', 'emb', 'ocr']);
      expect(results[0]!['response'].body.choices[0].message.content).toBe('answer');
      expect(results[3]!['response'].body.data).toHaveLength(2);
      expect(results[4]!['response'].body.text).toBe('page text');
      const [failure] = readLines(errorFileOf(out));
      expect(failure).toMatchObject({ custom_id: 'missing-file', response: { status_code: 400, body: { error: { type: 'invalid_request_error' } } } });
      // Each line went up once, with the batch class and the job's tenant.
      expect(fixture.mock.counters(chatSource).chat).toBe(3);
      expect(calls.map(({ priority, tenantId }) => ({ priority, tenantId }))).toEqual(Array(3).fill({ priority: 'batch', tenantId: 'acme' }));
    } finally {
      await Promise.all([engine.close(), chat.close(), embeddings.close(), ocr.close()]);
    }
  });

  it('runs /v1/responses lines as the governed chat call and answers Responses objects with usage', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'responses', { content: '{"city":"Oslo"}', usage: { prompt_tokens: 7, completion_tokens: 4 } });
    const client = await chatClient(fixture.mock, source);
    const engine = new SqliteBatchEngine({ dir });
    try {
      const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
      const lines = [
        JSON.stringify({ custom_id: 'r1', method: 'POST', url: '/v1/responses', body: { model: 'mock-model', input: 'Capital of Norway?', instructions: 'Answer in JSON.', max_output_tokens: 32, temperature: 0.2, reasoning: { effort: 'low' }, text: { format: { type: 'json_schema', name: 'city', schema, strict: true } } } }),
        JSON.stringify({ custom_id: 'r2', url: '/v1/responses', body: { model: 'mock-model', input: [{ role: 'developer', content: 'Be brief.' }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }] } }),
        JSON.stringify({ custom_id: 'r-tools', url: '/v1/responses', body: { model: 'mock-model', input: 'x', tools: [{ type: 'web_search' }] } }),
      ];
      const summary = await runBatch(client, lines.join('\n'), { engine, job: 'responses' });
      expect(summary).toMatchObject({ status: 'completed', total: 3, done: 2, failed: 1 });
      const out = join(dir, 'out.jsonl');
      await writeBatchOutput(engine, 'responses', { out });
      const [first, second] = readLines(out);
      expect(first!['custom_id']).toBe('r1');
      expect(first!['response'].status_code).toBe(200);
      expect(first!['response'].body).toMatchObject({
        object: 'response',
        status: 'completed',
        model: expect.any(String),
        output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '{"city":"Oslo"}', annotations: [] }] }],
        usage: { input_tokens: 7, output_tokens: 4, total_tokens: 11 },
      });
      expect(first!['response'].body.id).toMatch(/^resp_/);
      expect(first!['response'].body.created_at).toEqual(expect.any(Number));
      expect(second!['response'].body.output[0].content[0].text).toBe('{"city":"Oslo"}');
      // What went upstream: the chat request the Responses route maps the body to (@pgw/wire), the
      // schema as the governed structured output sends it to a source without a native schema mode.
      const sent = fixture.mock.requests(source).map((request) => request.body as Record<string, any>);
      expect(sent).toHaveLength(2);
      const structured = sent.find((body) => body['reasoning_effort'] !== undefined)!;
      expect(structured).toMatchObject({ max_tokens: 32, temperature: 0.2, reasoning_effort: 'low', messages: [{ role: 'system', content: 'Answer in JSON.' }, { role: 'user' }] });
      expect(structured['messages'][1].content).toContain('"required":["city"]');
      const plain = sent.find((body) => body['reasoning_effort'] === undefined)!;
      expect(plain['messages']).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
      // A hosted tool has nobody to run it in a batch: the line fails naming the tool.
      const [failure] = readLines(errorFileOf(out));
      expect(failure).toMatchObject({ custom_id: 'r-tools', response: { status_code: 400, body: { error: { type: 'invalid_request_error' } } } });
      expect(failure!['response'].body.error.message).toContain('tools[0].type');
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('runs /v1/messages lines as the Messages route does: Anthropic messages with usage, tools, a system prompt; a stream is refused naming the field', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'messages', {
      content: 'Bonjour',
      usage: { prompt_tokens: 9, completion_tokens: 5 },
      steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }],
    });
    const client = await chatClient(fixture.mock, source, { 'SOURCE:PRICING': JSON.stringify({ inputPerMTok: 1000, outputPerMTok: 1000 }) });
    const engine = new SqliteBatchEngine({ dir });
    try {
      const weather = { name: 'get_weather', description: 'weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
      const lines = [
        { custom_id: 'm-tool', url: '/v1/messages', body: { model: 'mock-model', max_tokens: 40, tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] } },
        { custom_id: 'm-system', url: '/v1/messages', body: { model: 'mock-model', max_tokens: 24, system: 'Answer in French.', messages: [{ role: 'user', content: 'Hello' }] } },
        { custom_id: 'm-stream', url: '/v1/messages', body: { model: 'mock-model', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'x' }] } },
      ];
      // The worst case reserves each line's own max_tokens as output.
      const estimate = estimateJob({ chat: client }, checkBatchInput(client, lines));
      expect(estimate).toMatchObject({ items: 3, maxOutputTokens: 40 + 24 + 8 });
      const summary = await runBatch(client, lines, { engine, job: 'messages', concurrency: 1 });
      expect(summary).toMatchObject({ status: 'completed', total: 3, done: 2, failed: 1 });
      const [tool, system, stream] = await engine.results('messages');
      expect(tool!.body).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }], usage: { input_tokens: 9, output_tokens: expect.any(Number) } });
      expect(system!.body).toMatchObject({ type: 'message', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Bonjour' }], usage: { input_tokens: 9, output_tokens: 5 } });
      expect(system!.costUsd).toBeCloseTo(14 * 0.001, 9);
      expect(stream).toMatchObject({ customId: 'm-stream', statusCode: 400, body: { error: { type: 'invalid_request_error' } } });
      expect((stream!.body as { error: { message: string } }).error.message).toMatch(/^stream /);
      // What went upstream: the chat request the Messages route maps the body to (@pgw/wire).
      const sent = fixture.mock.requests(source).map((request) => request.body as Record<string, any>);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatchObject({ max_tokens: 40, tool_choice: { type: 'function', function: { name: 'get_weather' } }, tools: [{ function: { name: 'get_weather' } }] });
      expect(sent[1]!['messages']).toEqual([{ role: 'system', content: 'Answer in French.' }, { role: 'user', content: 'Hello' }]);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('records a final upstream failure once, in the error file, and retryFailed runs it again as a new attempt', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'bad', { steps: [{ kind: 'status', status: 400 }] });
    const client = await chatClient(fixture.mock, source);
    const engine = new SqliteBatchEngine({ dir });
    try {
      const first = await runBatch(client, chatLines(3), { engine, job: 'retry', concurrency: 1 });
      expect(first).toMatchObject({ status: 'completed', done: 2, failed: 1 });
      expect(await engine.retryFailed('retry')).toBe(1);
      const second = await runBatch(client, chatLines(3), { engine, job: 'retry' });
      expect(second).toMatchObject({ status: 'completed', done: 3, failed: 0 });
      const [retried] = (await engine.results('retry')).filter((result) => result.attempt === 2);
      expect(retried?.customId).toBe('item-0');
      expect(fixture.mock.counters(source).chat).toBe(4);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('names the job in its first report, before the first item is sent', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'named', { content: 'answer' });
    const order: string[] = [];
    const client = await chatClient(fixture.mock, source, {}, [{ onCallStart: () => void order.push('call') }]);
    const engine = new SqliteBatchEngine({ dir });
    try {
      // A report interval no run reaches: only the opening report can come before the calls.
      await runBatch(client, chatLines(3), { engine, job: 'named', progressIntervalMs: 3_600_000, onProgress: ({ job, status, done }) => void order.push(`${job} ${status} ${done}`) });
      expect(order[0]).toBe('named running 0');
      expect(order.filter((entry) => entry === 'call')).toHaveLength(3);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('an aborted signal pauses the job; running it again sends only what was not recorded', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'slow', { latencyMs: 20 });
    const client = await chatClient(fixture.mock, source);
    const engine = new SqliteBatchEngine({ dir });
    try {
      const controller = new AbortController();
      const seen: JobProgress[] = [];
      const paused = await runBatch(client, chatLines(40), {
        engine,
        job: 'pause',
        concurrency: 4,
        signal: controller.signal,
        progressIntervalMs: 10,
        onProgress: (progress) => {
          seen.push(progress);
          if (progress.done >= 8) controller.abort();
        },
      });
      expect(paused).toMatchObject({ status: 'paused', pauseReason: 'signal', inFlight: 0 });
      expect(paused.done).toBeGreaterThanOrEqual(8);
      expect(paused.done).toBeLessThan(40);
      const sentBefore = fixture.mock.counters(source).chat;
      const resumed = await runBatch(client, chatLines(40), { engine, job: 'pause', concurrency: 4 });
      expect(resumed).toMatchObject({ status: 'completed', done: 40, failed: 0 });
      // Recorded items are never sent again: the resume sent the rest, plus at most the calls abandoned in flight.
      // (an abandoned request may reach the mock after the pause returned, so the bound is the rest plus the concurrency).
      expect(fixture.mock.counters(source).chat - sentBefore).toBeLessThanOrEqual(40 - paused.done + 4);
      expect(fixture.mock.counters(source).chat).toBeLessThanOrEqual(40 + 4);
      expect(seen.every((progress) => progress.job === 'pause' && progress.total === 40)).toBe(true);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('a job out of its budget pauses without failing items, and resumes when the budget is raised', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'priced', { usage: { prompt_tokens: 5, completion_tokens: 10 } });
    // 1000 USD per million tokens each way: an item bills 0.015 USD; its worst case (max_tokens 16) is more.
    const client = await chatClient(fixture.mock, source, { 'SOURCE:PRICING': JSON.stringify({ inputPerMTok: 1000, outputPerMTok: 1000 }) });
    const engine = new SqliteBatchEngine({ dir });
    try {
      const paused = await runBatch(client, chatLines(10), { engine, job: 'budget', concurrency: 2, budgetUsd: 0.06 });
      expect(paused).toMatchObject({ status: 'paused', pauseReason: 'budget', failed: 0, inFlight: 0 });
      expect(paused.done).toBeGreaterThan(0);
      expect(paused.done).toBeLessThan(4);
      expect(paused.costUsd).toBeCloseTo(paused.done * 0.015, 9);
      expect(paused.costUsd).toBeLessThanOrEqual(0.06);
      const resumed = await resumeBatch(client, { engine, job: 'budget', concurrency: 1, budgetUsd: 1 });
      expect(resumed).toMatchObject({ status: 'completed', done: 10, failed: 0 });
      expect(resumed.costUsd).toBeCloseTo(0.15, 9);
      expect(fixture.mock.counters(source).chat).toBe(10);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });

  it('resumeBatch of a job the engine does not know is BatchJobNotFoundError', async () => {
    const engine = new SqliteBatchEngine({ dir: tempDir() });
    try {
      await expect(resumeBatch({}, { engine, job: 'nowhere' })).rejects.toBeInstanceOf(BatchJobNotFoundError);
    } finally {
      await engine.close();
    }
  });

  it('refuses the whole input, before any call, when a line names a model no client serves', async () => {
    const dir = tempDir();
    const source = mockSource(fixture.mock, 'never');
    const client = await chatClient(fixture.mock, source);
    const engine = new SqliteBatchEngine({ dir });
    try {
      const lines = `${chatLines(2)}\n${JSON.stringify({ custom_id: 'x', url: '/v1/embeddings', body: { model: 'e', input: 'a' } })}`;
      await expect(runBatch(client, lines, { engine, job: 'refused' })).rejects.toMatchObject({ line: 3, field: 'body.model' });
      expect(await engine.progress('refused')).toBeUndefined();
      expect(fixture.mock.counters(source).total).toBe(0);
    } finally {
      await Promise.all([engine.close(), client.close()]);
    }
  });
});
