/**
 * parse ∘ shape is the identity on what both sides carry: a governed answer shaped into a protocol's
 * object, sent back by a client as the assistant's turn of its next request, is parsed into the same
 * text and tool calls; its usage read from the shaped object is the governed usage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, LLMResponse } from '@pgw/core';
import { anthropicMessage, chatCall, chatCompletion, messagesCall, responseObject, responsesCall } from '../src/index.js';
import { governedAnswer } from './answers.js';

const toolName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,30}$/);
const argumentsText = fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 3 }).map((value) => JSON.stringify(value));
const count = fc.nat({ max: 100_000 });

/** A governed answer: text (maybe none, when it calls tools), tool calls, usage with its details. */
const answers = fc
  .record({
    content: fc.string(),
    calls: fc.array(fc.record({ name: toolName, arguments: argumentsText }), { maxLength: 3 }),
    prompt: count,
    cached: count,
    completion: count,
    reasoning: count,
  })
  .filter(({ content, calls }) => content !== '' || calls.length > 0)
  .map(({ content, calls, prompt, cached, completion, reasoning }) =>
    governedAnswer({
      content,
      toolCalls: calls.map((call, index) => ({ id: `call_${index}`, ...call })),
      usage: { promptTokens: prompt + cached, cachedPromptTokens: cached, completionTokens: completion + reasoning, reasoningTokens: reasoning },
    }),
  );

/** What an assistant turn carries, as the governed call takes it: its text and its tool calls. */
function carried(message: ChatMessage | undefined): { text: string; calls: { id: string; name: string; arguments: string }[] } {
  const calls = (message?.tool_calls ?? []).map((call) => (call.type === 'custom' ? { id: call.id, name: call.custom.name, arguments: call.custom.input } : { id: call.id, name: call.function.name, arguments: call.function.arguments }));
  return { text: typeof message?.content === 'string' ? message.content : '', calls };
}
/** The governed usage as a shaped object says it, read back by `read`, against the answer's own. */
function expectUsage(read: Partial<Record<'promptTokens' | 'completionTokens' | 'cachedPromptTokens' | 'reasoningTokens', unknown>>, answer: LLMResponse): void {
  const { promptTokens, completionTokens, cachedPromptTokens, reasoningTokens } = answer.usage;
  const governed = { promptTokens, completionTokens, cachedPromptTokens, reasoningTokens };
  expect(read).toEqual(Object.fromEntries(Object.keys(read).map((key) => [key, governed[key as keyof typeof governed]])));
}
const expected = (answer: LLMResponse) => ({ text: answer.content, calls: (answer.toolCalls ?? []).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) });

describe('parse ∘ shape', () => {
  it('Chat Completions: the choice sent back as an assistant message; the usage read back', () => {
    fc.assert(
      fc.property(answers, (answer) => {
        const completion = chatCompletion(answer) as { choices: { message: Record<string, unknown> }[]; usage: Record<string, any> };
        const call = chatCall({ model: 'm', messages: [{ role: 'user', content: 'q' }, completion.choices[0]!.message] });
        expect(carried(call.messages[1])).toEqual(expected(answer));
        const { usage } = completion;
        expectUsage({ promptTokens: usage['prompt_tokens'], completionTokens: usage['completion_tokens'], cachedPromptTokens: usage['prompt_tokens_details'].cached_tokens, reasoningTokens: usage['completion_tokens_details'].reasoning_tokens }, answer);
      }),
    );
  });

  it('Responses: the output items sent back as input items; the usage read back', () => {
    const echo = responsesCall({ model: 'm', input: 'q' }, { hostedTools: 'drop' });
    fc.assert(
      fc.property(answers, (answer) => {
        const response = responseObject(answer, echo.echo, echo.namespaced) as unknown as { output: unknown[]; usage: Record<string, any> };
        const call = responsesCall({ model: 'm', input: [{ role: 'user', content: 'q' }, ...response.output] }, { hostedTools: 'drop' });
        expect(carried(call.messages[1])).toEqual(expected(answer));
        const { usage } = response;
        expectUsage({ promptTokens: usage['input_tokens'], completionTokens: usage['output_tokens'], cachedPromptTokens: usage['input_tokens_details'].cached_tokens, reasoningTokens: usage['output_tokens_details'].reasoning_tokens }, answer);
      }),
    );
  });

  it('Anthropic Messages: the content blocks sent back as the assistant turn; the usage read back (cache reads apart from input_tokens)', () => {
    fc.assert(
      fc.property(answers, (answer) => {
        const message = anthropicMessage(answer) as { content: unknown[]; usage: Record<string, number> };
        const call = messagesCall({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: message.content }] });
        expect(carried(call.messages[1])).toEqual(expected(answer));
        const { usage } = message;
        expectUsage({ promptTokens: usage['input_tokens']! + usage['cache_read_input_tokens']!, completionTokens: usage['output_tokens'], cachedPromptTokens: usage['cache_read_input_tokens'] }, answer);
      }),
    );
  });
});
