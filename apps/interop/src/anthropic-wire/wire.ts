/**
 * The bodies of the Anthropic Messages API as its reference documents them: a message, an error,
 * and the event sequence of a streamed message (`message_start`, `content_block_start`, `ping`,
 * `content_block_delta` with `text_delta` / `thinking_delta` / `input_json_delta`,
 * `content_block_stop`, `message_delta` with the stop reason and output usage, `message_stop`).
 */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface AnthropicAnswer {
  text?: string;
  thinking?: string;
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
  usage?: AnthropicUsage;
}

const DEFAULT_USAGE: AnthropicUsage = { input_tokens: 12, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

type Block = { type: 'text'; text: string } | { type: 'thinking'; thinking: string; signature: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocks(answer: AnthropicAnswer): Block[] {
  const out: Block[] = [];
  if (answer.thinking !== undefined) out.push({ type: 'thinking', thinking: answer.thinking, signature: 'sig-loopback' });
  if (answer.text !== undefined || answer.toolUse === undefined) out.push({ type: 'text', text: answer.text ?? 'Hello from the Anthropic wire.' });
  if (answer.toolUse) out.push({ type: 'tool_use', ...answer.toolUse });
  return out;
}

const stopReason = (answer: AnthropicAnswer): string => (answer.toolUse ? 'tool_use' : 'end_turn');

export function messageBody(model: string, answer: AnthropicAnswer): object {
  return {
    id: 'msg_loopback01',
    type: 'message',
    role: 'assistant',
    model,
    content: blocks(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: answer.usage ?? DEFAULT_USAGE,
  };
}

export function errorBody(type: string, message: string): object {
  return { type: 'error', error: { type, message }, request_id: 'req_loopback' };
}

export function streamEvents(model: string, answer: AnthropicAnswer): Array<[string, object]> {
  const usage = answer.usage ?? DEFAULT_USAGE;
  const { output_tokens, ...input } = usage;
  const events: Array<[string, object]> = [
    ['message_start', { type: 'message_start', message: { id: 'msg_loopback01', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { ...input, output_tokens: 1 } } }],
    ['ping', { type: 'ping' }],
  ];
  blocks(answer).forEach((block, index) => {
    const empty = block.type === 'text' ? { type: 'text', text: '' } : block.type === 'thinking' ? { type: 'thinking', thinking: '' } : { ...block, input: {} };
    events.push(['content_block_start', { type: 'content_block_start', index, content_block: empty }]);
    for (const delta of deltas(block)) events.push(['content_block_delta', { type: 'content_block_delta', index, delta }]);
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage: { output_tokens } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

/** Text in word-sized pieces, as the API streams it; tool input as partial JSON. */
function deltas(block: Block): object[] {
  switch (block.type) {
    case 'text':
      return (block.text.match(/\S+\s*/g) ?? ['']).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [{ type: 'thinking_delta', thinking: block.thinking }, { type: 'signature_delta', signature: block.signature }];
    case 'tool_use': {
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      return [json.slice(0, half), json.slice(half)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    }
  }
}
