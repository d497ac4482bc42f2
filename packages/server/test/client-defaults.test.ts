/**
 * The fields clients send by default, each of which the OpenAI API accepts: the Agents SDK's
 * `tools: []` on every turn, LangChain's `text: {}`, empty `metadata` and `include`, and the fields a
 * governed call has no use for. Each is served (honoured or ignored, as packages/server/README.md
 * says), never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const RESPONSES_DEFAULTS: Record<string, unknown>[] = [
  { tools: [] },
  { tools: [], tool_choice: 'auto' },
  { tools: [], tool_choice: 'none' },
  { parallel_tool_calls: false },
  { metadata: {} },
  { include: [] },
  { text: {} },
  { reasoning: {} },
  { truncation: 'disabled' },
  { service_tier: 'auto' },
  { user: 'u-1', safety_identifier: 'safe-1', prompt_cache_key: 'key-1' },
  { stream: true, stream_options: { include_obfuscation: false } },
];

const CHAT_DEFAULTS: Record<string, unknown>[] = [
  { tools: [] },
  { tools: [], tool_choice: 'auto' },
  { parallel_tool_calls: true },
  { metadata: {} },
  { stream: true, stream_options: { include_usage: true } },
  { messages: [{ role: 'developer', content: 'be brief' }, { role: 'user', content: 'hi' }] },
  { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant' }, { role: 'user', content: 'again' }] },
];

describe('what clients send by default', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const post = (path: string, body: unknown) => fetch(`${h.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each(RESPONSES_DEFAULTS)('serves a Responses request with %j', async (fields) => {
    const response = await post('/v1/responses', { model: 'gpt-4o-mini', input: 'hi', ...fields });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.text()).toContain('main');
  });

  it.each(CHAT_DEFAULTS)('serves a chat completion request with %j', async (fields) => {
    const response = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...fields });
    expect(response.status, await response.clone().text()).toBe(200);
    // Streamed, the answer comes in pieces: its last word is the one to find.
    expect(await response.text()).toContain('main');
  });

  it.each([
    [{ tools: [], tool_choice: 'required' }, 'tool_choice'],
    [{ tools: [{ type: 'function', name: 'has space' }] }, 'tools[0].name'],
    [{ tools: [{ type: 'function', name: 'a' }], tool_choice: { type: 'function', name: 'b' } }, 'tool_choice'],
    [{ input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] }, 'input[0].call_id'],
  ])('refuses %j with a 400 naming %s', async (fields, param) => {
    const response = await post('/v1/responses', { model: 'gpt-4o-mini', input: 'hi', ...fields });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });
});
