/**
 * `ai` 7 (LanguageModelV4 era, Node >= 22) driving the bridge, run by check.sh under Node 24:
 * toLanguageModel (a V3 model, which ai 7 still accepts) under generateText, streamText and a
 * two-step tool loop; fromLanguageModel over a V4 model of `@ai-sdk/openai-compatible` 3 as a source.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { GatewayClient, gatewaySettings } from '@pgw/client';
import { fromLanguageModel, toLanguageModel } from '@pgw/ai-sdk';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

let mock: MockUpstream;
let scopes = 0;

before(async () => {
  mock = await startMockUpstream({ script: { sources: {} } });
});
after(async () => {
  await mock.close();
});

async function client(sources: Parameters<typeof gatewaySettings>[0]['sources']): Promise<GatewayClient> {
  return GatewayClient.fromSettings(gatewaySettings({ scope: `AI7_${++scopes}`, selector: 'ordered', backends: { cache: 'none' }, sources }), { warn: () => {} });
}

test('generateText and streamText over toLanguageModel', async () => {
  mock.setSource('a', { content: 'hello from seven' });
  const governed = await client([{ name: 'a', baseUrl: mock.baseUrl('a'), model: 'a-model' }]);
  try {
    const model = toLanguageModel(governed);
    const result = await generateText({ model, prompt: 'hi' });
    assert.equal(result.text, 'hello from seven');
    assert.equal((result.providerMetadata?.['pgw'] as { source?: string }).source, 'a');
    const deltas: string[] = [];
    for await (const delta of streamText({ model, prompt: 'hi' }).textStream) deltas.push(delta);
    assert.equal(deltas.join(''), 'hello from seven');
    assert.ok(deltas.length > 1);
  } finally {
    await governed.close();
  }
});

test('a two-step tool loop over toLanguageModel', async () => {
  mock.setSource('t', { steps: [{ kind: 'tool_calls', calls: [{ id: 'c1', name: 'weather', arguments: { city: 'Oslo' } }] }, { kind: 'ok' }], content: '3 degrees' });
  const governed = await client([{ name: 't', baseUrl: mock.baseUrl('t'), model: 't-model' }]);
  try {
    const result = await generateText({
      model: toLanguageModel(governed),
      prompt: 'weather?',
      tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 3 }) }) },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.steps.length, 2);
    assert.equal(result.text, '3 degrees');
  } finally {
    await governed.close();
  }
});

test('a V4 model of @ai-sdk/openai-compatible 3 as a governed source, streaming', async () => {
  mock.setSource('v4', { content: 'four words in stream' });
  const v4 = createOpenAICompatible({ name: 'seven', baseURL: mock.baseUrl('v4'), includeUsage: true }).chatModel('v4-model');
  assert.equal(v4.specificationVersion, 'v4');
  const governed = await client([{ name: 'v4', model: fromLanguageModel(v4 as never) }]);
  try {
    const answer = await governed.chat([{ role: 'user', content: 'hi' }]);
    assert.equal(answer.content, 'four words in stream');
    assert.equal(answer.usage.usageSource, 'measured');
    const stream = governed.chatStream([{ role: 'user', content: 'hi' }]);
    const deltas: string[] = [];
    for await (const delta of stream) deltas.push(delta.content ?? '');
    assert.equal(deltas.join(''), 'four words in stream');
  } finally {
    await governed.close();
  }
});
