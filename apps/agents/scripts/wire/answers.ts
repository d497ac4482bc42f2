/**
 * The capture server's minimal valid answers, one per protocol, as JSON or as the protocol's event
 * stream: a text, or one tool call (so the client runs its tool and sends the result turn). Every id
 * is fixed, so what a client echoes back in its next turn is stable too.
 */
/** The four protocols the capture server speaks. */
export type Protocol = 'chat' | 'responses' | 'messages' | 'embeddings';

export type Answer = { text: string } | { toolCall: { name: string; arguments: Record<string, unknown> } };

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z
const USAGE_IN = 12;
const USAGE_OUT = 3;

/** The answer to `body` (a request of `protocol`), streamed when the body asks for it. */
export function reply(protocol: Protocol, body: Record<string, unknown>, answer: Answer): Reply {
  const model = typeof body['model'] === 'string' ? body['model'] : 'model';
  const stream = body['stream'] === true;
  switch (protocol) {
    case 'chat':
      return stream ? sse(chatChunks(model, answer, hasUsage(body)).map((chunk) => ({ data: chunk })), true) : json(chatCompletion(model, answer));
    case 'responses':
      return stream ? sse(responseEvents(model, answer).map((event) => ({ event: String(event['type']), data: event })), false) : json(response(model, answer, 'completed'));
    case 'messages':
      return stream ? sse(messageEvents(model, answer).map((event) => ({ event: String(event['type']), data: event })), false) : json(message(model, answer));
    case 'embeddings':
      return json(embeddings(model, body));
  }
}

function json(value: unknown): Reply {
  return { status: 200, contentType: 'application/json', body: JSON.stringify(value) };
}

function sse(events: { event?: string; data: unknown }[], done: boolean): Reply {
  const blocks = events.map(({ event, data }) => `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
  return { status: 200, contentType: 'text/event-stream', body: blocks.join('') + (done ? 'data: [DONE]\n\n' : '') };
}

function hasUsage(body: Record<string, unknown>): boolean {
  return (body['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
}

function argumentsOf(answer: Answer): string {
  return 'toolCall' in answer ? JSON.stringify(answer.toolCall.arguments) : '';
}

// Chat completions.

function chatCompletion(model: string, answer: Answer) {
  const message =
    'toolCall' in answer
      ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: answer.toolCall.name, arguments: argumentsOf(answer) } }] }
      : { role: 'assistant', content: answer.text, refusal: null };
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'toolCall' in answer ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: USAGE_IN, completion_tokens: USAGE_OUT, total_tokens: USAGE_IN + USAGE_OUT },
  };
}

function chatChunks(model: string, answer: Answer, usage: boolean) {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: CREATED, model, choices, ...extra });
  const delta =
    'toolCall' in answer ? { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: answer.toolCall.name, arguments: argumentsOf(answer) } }] } : { content: answer.text };
  return [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'toolCall' in answer ? 'tool_calls' : 'stop' }]),
    ...(usage ? [chunk([], { usage: { prompt_tokens: USAGE_IN, completion_tokens: USAGE_OUT, total_tokens: USAGE_IN + USAGE_OUT } })] : []),
  ];
}

// Responses.

function outputItem(answer: Answer, status: 'in_progress' | 'completed') {
  const done = status === 'completed';
  if ('toolCall' in answer) return { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: answer.toolCall.name, arguments: done ? argumentsOf(answer) : '', status };
  return { type: 'message', id: 'msg_1', status, role: 'assistant', content: done ? [outputText(answer.text)] : [] };
}

function outputText(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function response(model: string, answer: Answer, status: 'in_progress' | 'completed') {
  const done = status === 'completed';
  return {
    id: 'resp_1',
    object: 'response',
    created_at: CREATED,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: done ? [outputItem(answer, 'completed')] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: done
      ? { input_tokens: USAGE_IN, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE_OUT, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE_IN + USAGE_OUT }
      : null,
    metadata: {},
  };
}

function responseEvents(model: string, answer: Answer): Record<string, unknown>[] {
  const at = { output_index: 0 };
  const middle =
    'toolCall' in answer
      ? [
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', ...at, delta: argumentsOf(answer) },
          { type: 'response.function_call_arguments.done', item_id: 'fc_1', ...at, arguments: argumentsOf(answer) },
        ]
      : [
          { type: 'response.content_part.added', item_id: 'msg_1', ...at, content_index: 0, part: outputText('') },
          { type: 'response.output_text.delta', item_id: 'msg_1', ...at, content_index: 0, delta: answer.text, logprobs: [] },
          { type: 'response.output_text.done', item_id: 'msg_1', ...at, content_index: 0, text: answer.text, logprobs: [] },
          { type: 'response.content_part.done', item_id: 'msg_1', ...at, content_index: 0, part: outputText(answer.text) },
        ];
  const events = [
    { type: 'response.created', response: response(model, answer, 'in_progress') },
    { type: 'response.in_progress', response: response(model, answer, 'in_progress') },
    { type: 'response.output_item.added', ...at, item: outputItem(answer, 'in_progress') },
    ...middle,
    { type: 'response.output_item.done', ...at, item: outputItem(answer, 'completed') },
    { type: 'response.completed', response: response(model, answer, 'completed') },
  ];
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

// Messages.

function contentBlock(answer: Answer) {
  return 'toolCall' in answer ? { type: 'tool_use', id: 'toolu_1', name: answer.toolCall.name, input: answer.toolCall.arguments } : { type: 'text', text: answer.text };
}

function message(model: string, answer: Answer) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [contentBlock(answer)],
    stop_reason: 'toolCall' in answer ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: USAGE_IN, output_tokens: USAGE_OUT, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function messageEvents(model: string, answer: Answer): Record<string, unknown>[] {
  const whole = message(model, answer);
  const start = 'toolCall' in answer ? { ...contentBlock(answer), input: {} } : { type: 'text', text: '' };
  const delta = 'toolCall' in answer ? { type: 'input_json_delta', partial_json: argumentsOf(answer) } : { type: 'text_delta', text: answer.text };
  return [
    { type: 'message_start', message: { ...whole, content: [], stop_reason: null, usage: { ...whole.usage, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: start },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: whole.stop_reason, stop_sequence: null }, usage: { output_tokens: USAGE_OUT } },
    { type: 'message_stop' },
  ];
}

// Embeddings: three dimensions per input, as floats or as the base64 of their float32 bytes (the openai SDK's default).

function embeddings(model: string, body: Record<string, unknown>) {
  const inputs = Array.isArray(body['input']) ? body['input'] : [body['input']];
  const vector = [0.25, -0.5, 0.75];
  const embedding = body['encoding_format'] === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
  return { object: 'list', data: inputs.map((_, index) => ({ object: 'embedding', index, embedding })), model, usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } };
}
