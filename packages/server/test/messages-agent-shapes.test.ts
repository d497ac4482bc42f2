/**
 * `POST /v1/messages` with the request shapes Claude Code 2.1.332 sends by default (its default
 * model): a `system` turn inside `messages` (its environment block, after the user's turn) and
 * `thinking: { type: 'adaptive' }` with `output_config.effort`, beside a field the route ignores
 * (`context_management`). Both were 400s before; apps/agents runs the real client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const KEY = 'sk-team-x-0001';

describe('Messages requests of a coding agent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } }, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: 'team-x' }) });
  });
  afterAll(() => h.close());

  const post = (body: unknown) =>
    fetch(`${h.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
  const agentBody = (stream: boolean) => ({
    model: 'claude-opus-5-5',
    max_tokens: 128_000,
    system: [{ type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'say the magic words' }] },
      { role: 'system', content: [{ type: 'text', text: '# Environment' }, { type: 'text', text: 'cwd: /tmp/x' }] },
    ],
    thinking: { type: 'adaptive', display: 'omitted' },
    output_config: { effort: 'medium' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    stream,
  });

  it('takes a system turn inside the conversation, in place, and adaptive thinking at its output_config.effort', async () => {
    const answer = await post(agentBody(false));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'hello from the mock' }] });
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['messages']).toEqual([
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'say the magic words' },
      { role: 'system', content: '# Environment\ncwd: /tmp/x' },
    ]);
    expect(sent['reasoning_effort']).toBe('medium');
  });

  it('leaves the source its own effort for adaptive thinking without an effort, and a thinking budget wins over it', async () => {
    const { output_config: _effort, ...adaptive } = agentBody(false);
    expect((await post(adaptive)).status).toBe(200);
    expect(h.mock.requests('main').at(-1)!.body).not.toHaveProperty('reasoning_effort');
    expect((await post({ ...adaptive, thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { effort: 'max' } })).status).toBe(200);
    expect((h.mock.requests('main').at(-1)!.body as Record<string, unknown>)['reasoning_effort']).toBe('low');
  });

  it('streams the same request', async () => {
    const answer = await post(agentBody(true));
    expect(answer.status).toBe(200);
    const events = await answer.text();
    expect(events).toContain('event: message_start');
    expect(events).toContain('"type":"text_delta"');
    expect(events).toContain('event: message_stop');
  });

  it('refuses a system turn with a block other than text, naming it', async () => {
    const before = h.mock.counters('main').chat;
    const answer = await post({
      model: 'm',
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
      ],
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(await answer.json())).toContain('messages[1].content[0]');
    expect(h.mock.counters('main').chat).toBe(before);
  });
});
