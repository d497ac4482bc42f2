import { delay, errorBody, jsonPayload, rawJsonPayload, sendJson, waitForAbort, type Exchange, type Payload } from './exchange.js';
import { MIB, drained, inBandError, playStep, sendWholeOrCut, type RouteStep } from './steps.js';
import { countTokens, splitTokens } from './tokens.js';
import { callText, toolCallFragments, wireToolCalls, type ToolCallsStep } from './tool-calls.js';
import type { ScriptUsage, SourceScript } from './types.js';

interface ChatReply {
  id: string;
  created: number;
  model: string;
  content: string;
  reasoning: string | undefined;
  usage: Record<string, unknown> | undefined;
  includeUsageChunk: boolean;
}

let completionSeq = 0;

/** `POST /{source}/v1/chat/completions`: JSON, or SSE when the body asks for `stream: true`. */
export async function handleChat(ex: Exchange, json: unknown): Promise<void> {
  const request = json as { messages?: unknown; model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
  if (typeof request !== 'object' || request === null || !Array.isArray(request.messages)) {
    sendJson(ex.res, 400, errorBody("'messages' must be an array", 'invalid_request_error', 'invalid_request'));
    return;
  }
  const reply = buildReply(ex.source.name, ex.source.script, request.messages, request.model, request.stream_options?.include_usage === true);
  const stream = request.stream === true;
  await playStep(ex, ex.source.nextStep('chat'), async (e, step) =>
    step.kind === 'tool_calls'
      ? answerToolCalls(e, step, reply, stream)
      : stream
      ? streamChat(e, step, reply)
      : sendWholeOrCut(e, step, jsonPayload(completionBody(reply)), malformedChat(step), [
          `{"id":"${reply.id}","object":"chat.completion","created":${reply.created},"model":${JSON.stringify(reply.model)},"choices":[{"index":0,"message":{"role":"assistant","content":"`,
          '","refusal":null},"finish_reason":"stop","logprobs":null}]}',
        ]),
  );
}

function buildReply(source: string, script: SourceScript, messages: unknown[], model: unknown, includeUsage: boolean): ChatReply {
  const content = script.content ?? `hello from ${source}`;
  const reasoning = script.reasoning;
  return {
    id: `chatcmpl-mock-${++completionSeq}`,
    created: Math.floor(Date.now() / 1000),
    model: typeof model === 'string' ? model : source,
    content,
    reasoning,
    usage: usageBody(script, messages, content, reasoning),
    includeUsageChunk: includeUsage,
  };
}

function usageBody(script: SourceScript, messages: unknown[], content: string, reasoning: string | undefined) {
  if (script.usage === false) return undefined;
  const reasoningTokens = script.usage ? script.usage.reasoning_tokens : reasoning ? countTokens(reasoning) : undefined;
  const prompt = script.usage?.prompt_tokens ?? countTokens(messages.map(messageText).join(' '));
  const completion = script.usage?.completion_tokens ?? countTokens(content) + (reasoningTokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(reasoningTokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoningTokens } }),
    ...cacheUsage(script.usage || undefined, prompt),
  };
}

function cacheUsage(usage: ScriptUsage | undefined, prompt: number): Record<string, unknown> {
  const cached = usage?.cached_tokens;
  if (cached === undefined) return {};
  return usage?.cache_form === 'deepseek'
    ? { prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: prompt - cached }
    : { prompt_tokens_details: { cached_tokens: cached } };
}

function messageText(message: unknown): string {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => ((part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text) : '')).join(' ');
}

function completionBody(reply: ChatReply): object {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          // `refusal` and `logprobs` are required (nullable) by the OpenAI spec: sent as OpenAI does.
          refusal: null,
          ...(reply.reasoning === undefined ? {} : { reasoning_content: reply.reasoning }),
        },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
}

/** A tool-call answer: one JSON body, or SSE with the calls' fragments (then a usage chunk when asked, then [DONE]). */
async function answerToolCalls(ex: Exchange, step: ToolCallsStep, reply: ChatReply, stream: boolean): Promise<void> {
  const calls = wireToolCalls(step);
  const content = step.content ?? null;
  const usage = reply.usage && { ...reply.usage, completion_tokens: countTokens(calls.map(callText).join(' ')) };
  const base = { id: reply.id, created: reply.created, model: reply.model };
  if (!stream) {
    const message = { role: 'assistant', content, refusal: null, tool_calls: calls };
    sendJson(ex.res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'tool_calls', logprobs: null }], ...(usage && { usage }) });
    return;
  }
  ex.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  ex.res.flushHeaders();
  const send = (data: unknown): void => {
    ex.res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
  const chunk = (delta: object, finishReason: string | null): object => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  send(chunk({ role: 'assistant', content: content ?? null }, null));
  for (const [i, fragment] of toolCallFragments(step, calls).entries()) {
    if (i === step.truncateAfter) {
      ex.res.end();
      return;
    }
    await delay(i === 0 ? (ex.source.script.ttftMs ?? 0) : (ex.source.script.interTokenMs ?? 0), ex.signal);
    send(chunk({ tool_calls: [fragment] }, null));
  }
  send(chunk({}, 'tool_calls'));
  if (reply.includeUsageChunk && usage) send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  send('[DONE]');
  ex.res.end();
}

function malformedChat(step: RouteStep): Payload {
  if (step.kind === 'malformed' && step.variant === 'wrong_shape') return jsonPayload({ id: 'chatcmpl-mock', object: 'chat.completion' });
  return rawJsonPayload('{"id":"chatcmpl-mock","choices":[{"message":');
}

/** SSE: reasoning deltas, then content deltas (finish_reason on the last), an optional usage chunk, then [DONE]. */
async function streamChat(ex: Exchange, step: RouteStep, reply: ChatReply): Promise<void> {
  const { res } = ex;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const send = (data: unknown): void => {
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
  const chunk = (delta: object, finishReason: string | null): object => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  if (step.kind === 'malformed') {
    send(step.variant === 'wrong_shape' ? { id: reply.id, object: 'chat.completion.chunk' } : '{"choices":[{"delta":');
    send('[DONE]');
    res.end();
    return;
  }

  if (step.kind === 'oversized') return streamOversized(ex, step.mb, (text) => chunk({ content: text }, null), send);

  const deltas: Array<Record<string, string>> = [
    ...splitTokens(reply.reasoning ?? '').map((t) => ({ reasoning_content: t })),
    ...splitTokens(reply.content).map((t) => ({ content: t })),
  ];
  const limit =
    step.kind === 'truncate' || step.kind === 'stall' ? (step.afterTokens ?? 1) : step.kind === 'in_band_error' ? (step.afterTokens ?? 0) : Infinity;
  const lastIsContent = reply.content.length > 0;
  const script = ex.source.script;
  for (const [i, delta] of deltas.entries()) {
    if (i >= limit) break;
    await delay(i === 0 ? (script.ttftMs ?? 0) : (script.interTokenMs ?? 0), ex.signal);
    const isLast = i === deltas.length - 1;
    send(chunk(i === 0 ? { role: 'assistant', ...delta } : delta, isLast && lastIsContent ? 'stop' : null));
  }
  if (step.kind === 'truncate') {
    res.end();
    return;
  }
  if (step.kind === 'stall') return waitForAbort(ex.signal);
  if (step.kind === 'in_band_error') {
    const error = JSON.stringify({ error: inBandError(step.error) });
    res.write(step.as === 'event' ? `event: error\ndata: ${error}\n\n` : `data: ${error}\n\n`);
    send('[DONE]');
    res.end();
    return;
  }
  if (!lastIsContent) send(chunk(deltas.length === 0 ? { role: 'assistant' } : {}, 'stop'));
  if (reply.includeUsageChunk && reply.usage) {
    send({ id: reply.id, object: 'chat.completion.chunk', created: reply.created, model: reply.model, choices: [], usage: reply.usage });
  }
  send('[DONE]');
  res.end();
}

/** About `mb` MiB of content chunks, then [DONE], honouring backpressure and the exchange's abort. */
async function streamOversized(ex: Exchange, mb: number, chunk: (text: string) => object, send: (data: unknown) => void): Promise<void> {
  const piece = 'x'.repeat(16 * 1024);
  const event = `data: ${JSON.stringify(chunk(piece))}\n\n`;
  for (let sent = 0; sent < mb * MIB; sent += event.length) {
    if (ex.signal.aborted) return;
    if (!ex.res.write(event)) await drained(ex);
  }
  send('[DONE]');
  ex.res.end();
}
