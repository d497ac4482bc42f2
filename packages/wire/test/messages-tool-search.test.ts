/**
 * Claude Code defers an MCP server's tools behind its ToolSearch: the model loads one, and the
 * result turn carries a `tool_reference` block (recorded in fixtures/claude-code.json). The upstream
 * speaks Chat Completions and is offered every tool of the request at once, so the reference reaches
 * it as a line of the tool message. A block the route does not take is refused naming its own path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { messagesCall } from '../src/index.js';
import { messagesRefusal as refusal } from './refusal.js';

const recorded = JSON.parse(readFileSync(new URL('./fixtures/claude-code.json', import.meta.url), 'utf8')) as { requests: { name: string; body: Record<string, unknown> }[] };
const toolSearchTurn = recorded.requests.find((request) => request.name.includes('tool_reference'))!.body;


const withResult = (content: unknown) => ({
  model: 'm',
  max_tokens: 16,
  messages: [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content }] },
  ],
});

describe('a tool_reference in a tool_result', () => {
  it("takes Claude Code's recorded ToolSearch turn: the loaded tool named in the tool message, and offered upstream", () => {
    const call = messagesCall(toolSearchTurn);
    const result = call.messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: 'toolu_1', content: 'Tool loaded: mcp__notes__lookup\n' });
    expect(Object.keys(call.options.tools ?? {})).toContain('mcp__notes__lookup');
  });

  it('joins references and text in their order', () => {
    const call = messagesCall(withResult([{ type: 'tool_reference', tool_name: 'a' }, { type: 'text', text: 'then b' }]));
    expect(call.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Tool loaded: a\nthen b' });
  });
});

describe('a refused block', () => {
  it('is named by its own path, not by the union that holds it', () => {
    const unknown = refusal(withResult([{ type: 'tool_reference', tool_name: 'a' }, { type: 'document', source: {} }]));
    expect(unknown.param).toBe('messages[2].content[0].content[1]');
    expect(unknown.problem).toBe('must be a text, image or tool_reference block');
    expect(refusal(withResult([{ type: 'tool_reference' }])).param).toBe('messages[2].content[0].content[0].tool_name');
    expect(refusal(withResult([{ type: 'tool_reference', tool_name: '' }])).problem).toBe('must not be empty');
  });

  it('names a message block the route does not take', () => {
    const error = refusal({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: [{ type: 'audio' }] }] });
    expect([error.param, error.problem]).toEqual(['messages[0].content[0]', 'must be a text, image, tool_use, tool_result, thinking or redacted_thinking block']);
  });

  it('keeps a wrong type of the whole content at the content', () => {
    expect(refusal({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 7 }] }).param).toBe('messages[0].content');
  });
});
