/**
 * Answers in the shape the OpenAI spec gives them (what test/conformance checks every parsed answer
 * against): a test writes only what it is about, these add the envelope every answer carries.
 */

const ENVELOPE = { id: 'chatcmpl-fixture', created: 1_700_000_000, model: 'mock-model' };

type Json = Record<string, unknown>;

/** A `chat.completion` body with one choice; the message is the assistant's (`refusal: null` as OpenAI sends it). */
export function completionJson(choice: { message: Json; finish_reason?: string }, extra: Json = {}): string {
  const { message, finish_reason = 'stop' } = choice;
  return JSON.stringify({
    ...ENVELOPE,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason, logprobs: null }],
    ...extra,
  });
}

/** A `chat.completion.chunk` payload with one choice. */
export function chunkJson(delta: Json, finishReason: string | null = null, extra: Json = {}): string {
  return JSON.stringify({ ...ENVELOPE, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra });
}

/** The last chunk of a stream asked for its usage: no choices. */
export function usageChunkJson(usage: Json): string {
  return JSON.stringify({ ...ENVELOPE, object: 'chat.completion.chunk', choices: [], usage });
}

/** An `/embeddings` list. */
export function embeddingsJson(data: ReadonlyArray<{ index: number; embedding: number[] }>, usage: Json): string {
  return JSON.stringify({ object: 'list', model: 'mock-model', data: data.map((item) => ({ object: 'embedding', ...item })), usage });
}

/** Usage as the spec has it: prompt, completion and their total. */
export function usageJson(promptTokens: number, completionTokens: number, details: Json = {}): Json {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, ...details };
}
