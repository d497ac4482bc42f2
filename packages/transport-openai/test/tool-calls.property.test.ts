/**
 * Any spec-valid `tool_calls` — function and custom calls in any mix, with or without text — comes
 * back call for call as what it is (the issue's report: such answers used to fail on a custom call).
 */
import { specIssues } from '@pgw/testkit/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseChatCompletion } from '../src/chat-answer.js';
import { completionJson } from './spec-fixtures.js';

const origin = { failure: { sourceName: 'good', secrets: [], route: 'chat/completions', warn: () => {} }, status: 200, headers: {} };

const functionCall = fc.record({ id: fc.string({ minLength: 1 }), name: fc.string(), arguments: fc.string() }).map(({ id, name, arguments: args }) => ({
  wire: { id, type: 'function', function: { name, arguments: args } },
  call: { id, name, arguments: args },
}));
const customCall = fc.record({ id: fc.string({ minLength: 1 }), name: fc.string(), input: fc.string() }).map(({ id, name, input }) => ({
  wire: { id, type: 'custom', custom: { name, input } },
  call: { id, type: 'custom', name, arguments: input },
}));

describe('tool calls of any spec-valid answer', () => {
  it('come back as function and custom calls, in order, with their raw text', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(functionCall, customCall), { minLength: 1, maxLength: 5 }), fc.option(fc.string()), (calls, content) => {
        const body = completionJson({ message: { content, tool_calls: calls.map((c) => c.wire) }, finish_reason: 'tool_calls' });
        expect(specIssues('CreateChatCompletionResponse', JSON.parse(body))).toEqual([]);
        expect(parseChatCompletion(body, origin).toolCalls).toEqual(calls.map((c) => c.call));
      }),
      { numRuns: 90 },
    );
  });
});
