import type { ChatMessage } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertToolConversation, toolRequest } from '../src/tool-options.js';

const params = z.object({ city: z.string(), days: z.number().int().default(1) });
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'weather', arguments: '{}' } });

describe('toolRequest', () => {
  it('converts a zod schema with zod (input side) and keeps it for validation; copies a JSON Schema', () => {
    const json = { type: 'object', properties: { zone: { type: 'string' } } };
    const request = toolRequest({ tools: { weather: { description: 'd', parameters: params }, time: { parameters: json } }, parallelToolCalls: true }, 'chat');
    expect(request.tools).toEqual([
      {
        name: 'weather',
        description: 'd',
        parameters: expect.objectContaining({ type: 'object', required: ['city'] }),
      },
      { name: 'time', parameters: json },
    ]);
    expect((request.tools![1] as { parameters: unknown }).parameters).not.toBe(json);
    expect(request.toolSchemas).toEqual({ weather: params });
    expect(request.parallelToolCalls).toBe(true);
  });

  it.each([
    [{ tools: {} }, /chat\(tools\) must be a non-empty plain object/],
    [{ tools: { ['x'.repeat(65)]: { parameters: params } } }, /chat\(tools\) has a tool named/],
    [{ tools: { 'a.b': { parameters: params } } }, /names match/],
    [{ tools: { w: { parameters: z.string() } } }, /chat\(tools\.w\)\.parameters must be an object schema/],
    [{ tools: { w: { parameters: z.object({ when: z.date() }) } } }, /chat\(tools\.w\)\.parameters cannot be expressed as JSON Schema/],
    [{ tools: { w: { parameters: { type: 'array' } } } }, /type is 'object'/],
    [{ tools: { w: { parameters: { type: 'object', bad: () => 1 } } } }, /chat\(tools\.w\)\.parameters\.bad must be JSON-serialisable/],
    [{ tools: { w: { parameters: params, execute: () => 1 } } }, /chat\(tools\.w\) has no key 'execute'/],
    [{ tools: { w: { description: 3, parameters: params } } }, /chat\(tools\.w\)\.description must be a string/],
    [{ tools: { w: { parameters: params } }, toolChoice: 'always' }, /chat\(toolChoice\) must be/],
    [{ tools: { w: { parameters: params } }, toolChoice: { name: 'v' } }, /names 'v', which is not one of chat\(tools\)/],
    [{ tools: { w: { parameters: params } }, parallelToolCalls: 'yes' }, /chat\(parallelToolCalls\) must be a boolean/],
    [{ parallelToolCalls: true }, /chat\(parallelToolCalls\) needs chat\(tools\)/],
  ])('refuses %j with a TypeError naming the option', (options, pattern) => {
    expect(() => toolRequest(options as never, 'chat')).toThrow(TypeError);
    expect(() => toolRequest(options as never, 'chat')).toThrow(pattern);
  });
});

describe('toolRequest with custom tools', () => {
  it('takes a custom tool with its format beside function tools, and a choice naming it', () => {
    const format = { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: "a"' } };
    const request = toolRequest({ tools: { apply_patch: { type: 'custom', description: 'patch', format }, time: { parameters: { type: 'object' } } }, toolChoice: { name: 'apply_patch' } }, 'chat');
    expect(request.tools).toEqual([
      { name: 'apply_patch', type: 'custom', description: 'patch', format },
      { name: 'time', parameters: { type: 'object' } },
    ]);
    expect(request.toolChoice).toEqual({ name: 'apply_patch' });
  });

  it.each([
    [{ type: 'grammar' }, "chat(tools.x).type must be 'custom' or absent (a function tool)"],
    [{ type: 'custom', parameters: { type: 'object' } }, "chat(tools.x) has no key 'parameters'; known: type, description, format"],
    [{ type: 'custom', format: 'lark' }, 'chat(tools.x).format must be a plain object'],
  ])('refuses a bad custom tool %j, naming the option', (tool, message) => {
    expect(() => toolRequest({ tools: { x: tool as never } }, 'chat')).toThrow(message);
  });
});

describe('assertToolConversation', () => {
  const user: ChatMessage = { role: 'user', content: 'hi' };

  it('accepts an assistant turn with function and custom tool calls (null content) answered by tool messages', () => {
    const messages: ChatMessage[] = [
      user,
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b'), { id: 'c', type: 'custom', custom: { name: 'shell', input: 'ls' } }] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'b', content: '2' },
      { role: 'tool', tool_call_id: 'c', content: 'file.txt' },
    ];
    expect(() => assertToolConversation(messages, 'chat(messages)')).not.toThrow();
  });

  it.each([
    [[user, { role: 'tool', tool_call_id: 'a', content: '1' }], /chat\(messages\)\[1\]\.tool_call_id 'a' answers no tool call/],
    [[{ role: 'tool', tool_call_id: 'a', content: '1' }, { role: 'assistant', content: null, tool_calls: [call('a')] }], /\[0\]\.tool_call_id 'a' answers no tool call/],
    [[user, { role: 'tool', content: '1' }], /\[1\]\.tool_call_id must be the id/],
    [[{ role: 'user', content: null }], /\[0\]\.content may be null only/],
    [[{ role: 'user', content: 'x', tool_calls: [call('a')] }], /\[0\]\.tool_calls is allowed on an assistant message only/],
    [[{ role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 'w' } }] }], /\[0\]\.tool_calls\[0\] must be/],
    [[{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'custom', custom: { name: 'w' } }] }], /\[0\]\.tool_calls\[0\] must be .* or \{ id, type: 'custom', custom: \{ name, input: string \} \}/],
    [[user, { role: 'user', content: 'x', tool_call_id: 'a' }], /\[1\]\.tool_call_id is allowed on a tool message only/],
  ])('refuses %j', (messages, pattern) => {
    expect(() => assertToolConversation(messages as ChatMessage[], 'chat(messages)')).toThrow(pattern);
  });
});
