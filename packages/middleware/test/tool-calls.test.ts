import type { ToolCall } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toWireCall } from '@pgw/core';
import { checkToolCalls, leniently } from '../src/structured/tool-calls.js';

const weather = { name: 'weather', parameters: { type: 'object' } };
const functionCall: ToolCall = { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' };
const customCall: ToolCall = { id: 'c2', type: 'custom', name: 'shell', arguments: 'ls -la' };

describe('custom tool calls', () => {
  it('keep their raw input as the input, never parsed as JSON', () => {
    expect(leniently([functionCall, customCall])).toEqual([
      { ...functionCall, input: { city: 'Paris' } },
      { ...customCall, input: 'ls -la' },
    ]);
  });

  it('go back on the wire as custom calls', () => {
    expect(toWireCall(customCall)).toEqual({ id: 'c2', type: 'custom', custom: { name: 'shell', input: 'ls -la' } });
    expect(toWireCall(functionCall)).toEqual({ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } });
  });

  it('are the offered custom tool of their name, their text the input; a function call of that name is not', () => {
    const shell = { name: 'shell', type: 'custom' as const };
    expect(checkToolCalls([customCall], '', [weather, shell], undefined)).toEqual({ ok: true, calls: [{ ...customCall, input: 'ls -la' }] });
    const asFunction = { id: 'c3', name: 'shell', arguments: '{}' };
    const check = checkToolCalls([asFunction], '', [weather, shell], undefined);
    expect(!check.ok && check.issues).toEqual(["tool call c3 (shell): no tool named 'shell' was offered"]);
  });

  it('are an unknown tool when no custom tool was offered, even one named like a function tool', () => {
    const named = { ...customCall, name: 'weather', arguments: 'Paris' };
    const check = checkToolCalls([functionCall, named], '', [weather], { weather: z.object({ city: z.string() }) });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.issues).toEqual(["tool call c2 (weather): no custom tool named 'weather' was offered"]);
    expect(!check.ok && check.feedback[0]!.tool_calls).toEqual([toWireCall(functionCall), toWireCall(named)]);
  });
});
