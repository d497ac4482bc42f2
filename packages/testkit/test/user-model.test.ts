/**
 * A model as a user would write it — plain `fetch`, no @pgw/http — passing the same contract suites
 * as the built-in providers. docs/writing-a-provider.md walks through this code.
 */
import {
  MODEL_SPECIFICATION_VERSION,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type AttemptContext,
  type ChatDelta,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type EmbeddingModel,
  type EmbedRequest,
  type EmbedResult,
  type Usage,
} from '@pgw/core';
import { chatModelContract, embeddingModelContract, type ContractModelOptions } from '../src/index.js';

type Json = Record<string, any>;

/** An error of the taxonomy for an upstream failure; the body is never shown (it may echo a secret). */
function failure(sourceName: string, status: number, type?: string, retryAfter?: string | null): Error {
  const fields = { sourceName, statusCode: status, message: `source ${sourceName}: upstream failed (${status}${type ? ` ${type}` : ''})` };
  if (status === 429 || type === 'rate_limit_error') {
    const seconds = Number(retryAfter);
    return new TransientError({ ...fields, transientKind: 'rate_limited', ...(seconds > 0 && { retryAfterMs: seconds * 1000 }) });
  }
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error' || type === 'insufficient_quota') {
    return new SourceDeadError(fields);
  }
  if ((status >= 400 && status < 500) || type === 'invalid_request_error') return new RequestRejectedError(fields);
  return new TransientError({ ...fields, transientKind: 'server_error' });
}

/** An error object inside a 200 answer stands for the HTTP error its status or type names. */
function inBand(sourceName: string, error: Json): Error {
  const status = typeof error['status'] === 'number' ? error['status'] : typeof error['code'] === 'number' ? error['code'] : 200;
  return failure(sourceName, status, error['type'] ?? error['code']);
}

class FetchModel implements ChatModel, EmbeddingModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'my-fetch-provider';
  readonly modelId = 'my-model';
  readonly capabilities = { jsonSchema: false, streaming: true };
  readonly managedKeys: readonly string[] = [];

  constructor(private readonly options: ContractModelOptions) {}

  generate(request: ChatRequest, attempt: AttemptContext): Promise<ChatResult> {
    return this.chat(request, attempt, () => {});
  }

  async stream(request: ChatRequest, attempt: AttemptContext & { onDelta: (delta: ChatDelta) => void }): Promise<ChatResult> {
    let live = true;
    try {
      return await this.chat(request, attempt, (delta) => live && !attempt.signal.aborted && attempt.onDelta(delta));
    } finally {
      live = false;
    }
  }

  async embed(request: EmbedRequest, attempt: AttemptContext): Promise<EmbedResult> {
    const body = await this.exchange('embeddings', { model: this.modelId, input: request.texts }, attempt, async (text) => text());
    const json = JSON.parse(body) as Json;
    if (json['error']) throw inBand(attempt.sourceName, json['error']);
    const usage: Usage = { promptTokens: json['usage']['prompt_tokens'], completionTokens: 0, usageSource: 'measured' };
    attempt.onUsage?.(usage);
    return { vectors: json['data'].map((item: Json) => item['embedding']), model: this.modelId, usage };
  }

  async close(): Promise<void> {}

  private async chat(request: ChatRequest, attempt: AttemptContext, onDelta: (delta: ChatDelta) => void): Promise<ChatResult> {
    const stream = this.options.stream !== false;
    const payload = { model: this.modelId, messages: request.messages, stream, ...(stream && { stream_options: { include_usage: true } }) };
    return this.exchange('chat/completions', payload, attempt, async (text, lines) => {
      let content = '';
      let usage: Usage | undefined;
      const take = (json: Json): void => {
        if (json['error']) throw inBand(attempt.sourceName, json['error']);
        if (json['usage']) {
          usage = { promptTokens: json['usage']['prompt_tokens'], completionTokens: json['usage']['completion_tokens'], usageSource: 'measured' };
          attempt.onUsage?.(usage);
        }
        const piece = json['choices']?.[0]?.delta?.content ?? json['choices']?.[0]?.message?.content;
        if (typeof piece === 'string' && piece !== '') {
          content += piece;
          onDelta({ content: piece });
        }
      };
      if (!stream) take(JSON.parse(await text()) as Json);
      else {
        let event = 'message';
        for await (const line of lines()) {
          if (line.startsWith('event: ')) event = line.slice(7);
          if (!line.startsWith('data: ')) continue;
          const data = line.slice(6);
          if (event === 'error') throw inBand(attempt.sourceName, (JSON.parse(data) as Json)['error'] ?? {});
          if (data === '[DONE]') break;
          take(JSON.parse(data) as Json);
        }
      }
      if (usage === undefined) throw new ResultInvalidError({ message: `source ${attempt.sourceName}: no usage`, sourceName: attempt.sourceName });
      return { content, model: this.modelId, usage, thinkingObservation: 'unknown' };
    });
  }

  /** One request: headers, query, abort and timeout, status mapping, and a capped body read. */
  private async exchange<T>(
    route: string,
    payload: Json,
    attempt: AttemptContext,
    read: (text: () => Promise<string>, lines: () => AsyncGenerator<string>) => Promise<T>,
  ): Promise<T> {
    const { baseUrl, apiKey, apiKeyHeader = 'authorization', headers = {}, query = {}, maxResponseBytes = 64 * 1024 * 1024 } = this.options;
    const url = new URL(`${baseUrl}/${route}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const auth = apiKey === undefined ? {} : { [apiKeyHeader]: apiKeyHeader === 'authorization' ? `Bearer ${apiKey}` : apiKey };
    attempt.signal.throwIfAborted();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), attempt.timeoutMs);
    const onAbort = (): void => timeout.abort();
    attempt.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers, ...auth },
        body: JSON.stringify(payload),
        signal: timeout.signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw failure(attempt.sourceName, response.status, undefined, response.headers.get('retry-after'));
      }
      const chunks = async function* (): AsyncGenerator<Uint8Array> {
        let bytes = 0;
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          bytes += chunk.byteLength;
          if (bytes > maxResponseBytes) {
            throw new ResultInvalidError({ message: `source ${attempt.sourceName}: answer larger than ${maxResponseBytes} bytes`, sourceName: attempt.sourceName });
          }
          yield chunk;
        }
      };
      const text = async (): Promise<string> => {
        const decoder = new TextDecoder();
        let all = '';
        for await (const chunk of chunks()) all += decoder.decode(chunk, { stream: true });
        return all + decoder.decode();
      };
      const lines = async function* (): AsyncGenerator<string> {
        const decoder = new TextDecoder();
        let rest = '';
        for await (const chunk of chunks()) {
          const parts = (rest + decoder.decode(chunk, { stream: true })).split('\n');
          rest = parts.pop() ?? '';
          yield* parts;
        }
      };
      return await read(text, lines);
    } catch (error) {
      // The caller's abort wins; then our own timeout; upstream failures are already in their category.
      if (attempt.signal.aborted) throw attempt.signal.reason;
      if (timeout.signal.aborted) throw new TransientError({ message: `source ${attempt.sourceName}: timed out`, sourceName: attempt.sourceName, transientKind: 'timeout' });
      if (error instanceof Error && error.name === 'TypeError') throw new TransientError({ message: `source ${attempt.sourceName}: network`, sourceName: attempt.sourceName, transientKind: 'network' });
      throw error;
    } finally {
      clearTimeout(timer);
      attempt.signal.removeEventListener('abort', onAbort);
    }
  }
}

chatModelContract('a user-written fetch model', (options) => new FetchModel(options));
embeddingModelContract('a user-written fetch model', (options) => new FetchModel(options));
