/** The scripting vocabulary of the mock: what a test says each source should do. */

export type Step =
  | { kind: 'ok' }
  | {
      kind: 'status';
      status: number;
      /** Sent as `Retry-After`. */
      retryAfter?: string;
      /** Sent as `retry-after-ms`. */
      retryAfterMs?: string;
      body?: string | object;
      headers?: Record<string, string>;
    }
  | { kind: 'rate_limit'; retryAfter?: string }
  | { kind: 'insufficient_quota' }
  /** 400 `context_length_exceeded` (the OpenAI body, the message naming `contextWindow`, default 4096). */
  | { kind: 'context_length_exceeded'; contextWindow?: number }
  | { kind: 'hang' }
  | { kind: 'truncate'; afterTokens?: number }
  | { kind: 'stall'; afterTokens?: number }
  /** `unparseable` (default): a body that is not JSON / not a ZIP; `wrong_shape`: valid syntax, missing fields. */
  | { kind: 'malformed'; variant?: 'unparseable' | 'wrong_shape' }
  | { kind: 'wrong_dim'; dim: number }
  | { kind: 'latency'; ms: number }
  /**
   * A 200 answer carrying an error (the OpenAI streaming convention): a streamed chat sends
   * `afterTokens` (default 0) content chunks, then the error as a `data:` payload (`as: 'data'`,
   * default) or as an SSE `event: error`, then `[DONE]`; every other answer is a 200 JSON `{ "error": … }`.
   */
  | { kind: 'in_band_error'; error?: InBandError; as?: 'data' | 'event'; afterTokens?: number }
  /** A 2xx body of `mb` MiB (a stream: content chunks of that total), sent chunked unless `contentLength`. */
  | { kind: 'oversized'; mb: number; contentLength?: boolean }
  /**
   * The answer asks for tool calls (`finish_reason: 'tool_calls'`, content null unless `content`).
   * Streamed: per call a first fragment with id and name, then its arguments in `chunkChars`-character
   * pieces (default 7, so escapes get split); `interleave` sends the calls' fragments round-robin;
   * `truncateAfter` ends the stream after that many fragments (no finish, no [DONE]).
   */
  | { kind: 'tool_calls'; calls: ScriptToolCall[]; content?: string; interleave?: boolean; chunkChars?: number; truncateAfter?: number };

/**
 * A scripted tool call: `arguments` is sent as written (a string may be malformed JSON on purpose); an
 * object is sent as its JSON. `custom: true` sends a custom call, `arguments` (as text) its raw input.
 */
export interface ScriptToolCall {
  id?: string;
  name: string;
  arguments: string | object;
  custom?: boolean;
}

/** The error object of an in-band error; default `{ message, type: 'invalid_request_error' }`. */
export interface InBandError {
  message?: string;
  type?: string;
  code?: string | number;
  status?: number;
}

export type StepKind = Step['kind'];

export interface ScriptUsage {
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens?: number;
  /** Prompt-cache hits (a part of `prompt_tokens`), reported in the wire form `cache_form` says. */
  cached_tokens?: number;
  /** `openai` (default): `prompt_tokens_details.cached_tokens`; `deepseek`: `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`. */
  cache_form?: 'openai' | 'deepseek';
}

export interface ScriptLayout {
  markdown: string;
  elements: object[];
  /** Extra archive entries (path → UTF-8 text) added to the /parse ZIP. */
  files?: Record<string, string>;
}

export interface SourceScript {
  /** Delay before response headers, every request. */
  latencyMs?: number;
  /** Stream: delay before the first content/reasoning chunk. */
  ttftMs?: number;
  /** Stream: gap between chunks. */
  interTokenMs?: number;
  content?: string;
  reasoning?: string;
  /** `false` omits usage; default is computed from the texts. */
  usage?: ScriptUsage | false;
  embeddingDim?: number;
  ocrText?: string;
  layout?: ScriptLayout;
  /** Consumed one per request, each route family (chat / embeddings / ocr) walking the list on its own. */
  steps?: Step[];
  otherwise?: Step;
  /** 0..1: chance (seeded RNG) that a request past `steps` fails with a step drawn from `failureSteps`. */
  failureRate?: number;
  failureSteps?: Step[];
  /** `false` makes `GET /health` answer 503. Default true. */
  healthy?: boolean;
}

export interface MockScript {
  sources: Record<string, SourceScript>;
}

export type RouteName = 'chat' | 'embeddings' | 'ocrText' | 'parse' | 'health' | 'models';

/** Route families that consume steps. */
export type StepFamily = 'chat' | 'embeddings' | 'ocr';

export interface Counters {
  chat: number;
  embeddings: number;
  ocrText: number;
  parse: number;
  health: number;
  models: number;
  /** Every request that reached this source, any route. */
  total: number;
  /** Requests whose response has not closed yet. */
  inflight: number;
}

export interface RecordedFile {
  fileName: string;
  type: string;
  size: number;
}

export interface RecordedRequest {
  route: RouteName;
  method: string;
  /** Header names lower-cased. Includes `authorization` so tests can assert it was sent — never print it. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text if it was not JSON, or for multipart the form's field names. */
  body: unknown;
  /** The request URL's query parameters (a repeated name keeps its last value). */
  query: Record<string, string>;
  /** The client's source port: requests sharing one keep-alive socket share it. */
  clientPort: number | undefined;
  /** Epoch ms when the request arrived (its headers were read): requests per window of time. */
  arrivedAt: number;
  /** Multipart only: text fields and file metadata. */
  form?: { fields: Record<string, string>; files: Record<string, RecordedFile> };
}
