/**
 * The OpenAI Agents SDK (`@openai/agents`, pinned in src/pins.ts, fetched into the cache outside the
 * repository) as its quickstart runs it: `new Agent({ model })`, `run(agent, prompt)`, with only
 * `OPENAI_BASE_URL` (and the door key as `OPENAI_API_KEY`) set. It sends `tools: []` on every turn;
 * one turn answered, then a function-tool turn (the model asks for the tool, the SDK runs it and
 * sends the output back), each checked at the server and the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLibrary } from '../src/index.js';
import { DOOR_KEY, startGoverned, TENANT, type Governed } from './governed.js';

interface AgentsSdk {
  Agent: new (config: { name: string; model: string; instructions?: string; tools?: unknown[] }) => unknown;
  run(agent: unknown, input: string): Promise<{ finalOutput?: unknown }>;
  tool(config: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean; execute: (input: { city: string }) => Promise<string> }): unknown;
}

type ChatBody = { messages: { role: string; tool_call_id?: string; content: unknown }[]; tools?: { function: { name: string } }[] };

describe('the OpenAI Agents SDK against pgw serve', () => {
  let sdk: AgentsSdk;
  let governed: Governed;
  const saved = { ...process.env };
  beforeAll(async () => {
    governed = await startGoverned({ content: 'hello from the mock' });
    // What a user of the SDK sets, and tracing off: its exporter would post to api.openai.com.
    Object.assign(process.env, { OPENAI_BASE_URL: `${governed.url}/v1`, OPENAI_API_KEY: DOOR_KEY, OPENAI_AGENTS_DISABLE_TRACING: '1' });
    sdk = await importLibrary<AgentsSdk>('agentsSdk');
  }, 360_000);
  afterAll(async () => {
    for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_AGENTS_DISABLE_TRACING']) if (saved[key] === undefined) delete process.env[key];
    await governed?.close();
  });

  /** Every /v1 request was a 200 on the Responses route for the key's tenant, each a governed call that ended ok. */
  function expectGoverned(): void {
    const v1 = governed.access.filter((entry) => entry.route?.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(0);
    expect(v1.map((entry) => [entry.route, entry.status, entry.tenant])).toEqual(v1.map(() => ['/v1/responses', 200, TENANT]));
    for (const entry of v1) expect(governed.calls.find((call) => call.call.logicalCallId === entry.callId)).toMatchObject({ status: 'ok' });
  }

  it('answers one turn of an agent with only OPENAI_BASE_URL set', async () => {
    const result = await sdk.run(new sdk.Agent({ name: 'assistant', model: 'gpt-4o-mini' }), 'hi');
    expect(result.finalOutput).toBe('hello from the mock');
    await governed.accessLine('/v1/responses');
    expectGoverned();
  }, 60_000);

  it('runs a function tool when the model asks, and sends its output back', async () => {
    governed.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_sdk_1', name: 'get_weather', arguments: { city: 'Paris' } }] }], content: 'It is sunny in Paris' });
    const getWeather = sdk.tool({
      name: 'get_weather',
      description: 'the weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
      strict: true,
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const result = await sdk.run(new sdk.Agent({ name: 'weather', model: 'gpt-4o-mini', tools: [getWeather] }), 'weather in Paris?');
    expect(result.finalOutput).toBe('It is sunny in Paris');
    const [asked, answered] = governed.chats().slice(-2).map((request) => request.body as ChatBody);
    expect(asked!.tools!.map((tool) => tool.function.name)).toEqual(['get_weather']);
    expect(answered!.messages.find((message) => message.role === 'tool')).toMatchObject({ tool_call_id: 'call_sdk_1', content: 'sunny in Paris' });
    expectGoverned();
  }, 60_000);
});
