/** Public value types of docs/architecture.md#public-api. Durations are milliseconds. The settings shape is in settings.ts. */

/** The reasoning efforts, least to most: the levels of the OpenAI specification's `reasoning_effort`. */
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

export type ThinkingObservation = 'observed' | 'absent' | 'unknown';
export type UsageSource = 'measured' | 'estimated' | 'unavailable';

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } };

/** A tool call in the OpenAI wire shape, as an assistant message of a tool conversation carries it: a function call or a custom one. */
export type WireToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

/**
 * One message in the OpenAI wire shape. A tool conversation adds an assistant message with
 * `tool_calls` (its `content` may be null) and `tool` messages answering one call each by `tool_call_id`.
 */
export interface ChatMessage {
  role: ChatRole;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}

/**
 * A tool the model may call: a function, whose `parameters` is the JSON Schema (type object) of its
 * input, or a custom tool (`type: 'custom'`, OpenAI's freeform tools), whose input is free text,
 * bound by `format` (a grammar or `{ type: 'text' }`, sent as given) when there is one.
 */
export type ToolDefinition =
  | { name: string; description?: string; type?: undefined; parameters: Record<string, unknown> }
  | { name: string; description?: string; type: 'custom'; format?: Record<string, unknown> };

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * A tool call as the model sent it: `arguments` is the raw JSON text of a function call. A custom
 * call (`type: 'custom'`, the wire's `{ custom: { name, input } }`) carries its raw input text there;
 * `type` is absent for a function call.
 */
export interface ToolCall {
  id: string;
  type?: 'custom';
  name: string;
  arguments: string;
}

/**
 * A tool call of an answer: `input` is `arguments` parsed (and validated by the tool's zod schema
 * when it has one); for a custom call it is the raw input text.
 */
export interface ParsedToolCall extends ToolCall {
  input: unknown;
}

/** One streamed fragment of a tool call; fragments of one call share `index`, `id` and `name` come first. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  /** A custom call (only in the one delta of a whole answer: the stream wire carries function calls only). */
  type?: 'custom';
  name?: string;
  /** The next piece of the raw arguments text. */
  arguments?: string;
}

export interface Usage {
  /** Every prompt token, cached ones included. */
  promptTokens: number;
  /** Every completion token, reasoning ones included (the OpenAI convention). */
  completionTokens: number;
  /** The part of `completionTokens` spent on reasoning, when the upstream says. */
  reasoningTokens?: number;
  /** The part of `promptTokens` served from the upstream's prompt cache, when the upstream says. */
  cachedPromptTokens?: number;
  /**
   * The part of `promptTokens` written to the upstream's prompt cache (Anthropic bills the write
   * above the input price), when the upstream says. Disjoint from `cachedPromptTokens`.
   */
  cacheWritePromptTokens?: number;
  usageSource: UsageSource;
}

export interface CallStats {
  logicalCallId: string;
  attempts: number;
  totalLatencyMs: number;
  sourcesTried: string[];
}

export interface LLMResponse {
  content: string;
  parsed?: unknown;
  reasoningContent?: string;
  source: string;
  model: string;
  cached: boolean;
  usage: Usage;
  thinkingObservation: ThinkingObservation;
  callStats: CallStats;
  costUsd?: number;
  /** The tools the model asked to call (absent when it called none). */
  toolCalls?: ParsedToolCall[];
  /** Why the model stopped, as the upstream said (`stop`, `length`, `tool_calls`, …). */
  finishReason?: string;
}

/** One streamed piece of an answer. */
export interface ChatDelta {
  content?: string;
  reasoningContent?: string;
  toolCalls?: ToolCallDelta[];
}

/** How a structured answer is asked for (docs/architecture.md#structured-output). */
export type StructuredStrategy = 'json_repair' | 'json_schema';

/** A request as it travels through the middleware onion to a chat transport. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Caller's overlay of sampling parameters (temperature, max_tokens, …). Managed keys already rejected. */
  sampling: Record<string, unknown>;
  reasoningEffort?: Effort;
  /**
   * Native structured output (`response_format`) when the json_schema strategy is active. Only
   * models whose `capabilities.jsonSchema` is true receive it; the others get the JSON request in
   * the prompt instead (the governed path rewrites the request per source).
   */
  responseFormat?: { type: 'json_schema'; name: string; schema: Record<string, unknown> };
  /** Tools the model may call (the wire's `tools`), with `tool_choice` and `parallel_tool_calls`. */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
}

export interface ChatResult {
  content: string;
  reasoningContent?: string;
  model: string;
  usage: Usage;
  thinkingObservation: ThinkingObservation;
  finishReason?: string;
  /** The tools the model asked to call, in the order of their index. */
  toolCalls?: ToolCall[];
  /** Time to first token when streamed. */
  ttftMs?: number;
}

export interface EmbedRequest {
  texts: string[];
}

export interface EmbedResult {
  vectors: number[][];
  model: string;
  usage: Usage;
}

export interface OcrOptions {
  /** Free-form options passed to the OCR server as form fields. */
  fields?: Record<string, string>;
  fileName?: string;
  mimeType?: string;
}

export interface OcrTextResult {
  text: string;
  source: string;
  callStats: CallStats;
}

export interface LayoutElement {
  type: string;
  text?: string;
  bbox?: number[];
  page?: number;
  [key: string]: unknown;
}

/** What an OCR model returns for a layout parse. */
export interface OcrLayoutPayload {
  markdown: string;
  elements: LayoutElement[];
  /** Other files of the result archive (images…), by path. */
  files?: Record<string, Uint8Array>;
}

export interface OcrLayoutResult {
  markdown: string;
  elements: LayoutElement[];
  source: string;
  /** Other files of the result archive (images…), by path. */
  files?: Record<string, Uint8Array>;
  callStats: CallStats;
}

/** What a call does; `mcp` is a tool call the server forwards to an MCP server (its telemetry rows only). */
export type Operation = 'chat' | 'embed' | 'ocr_text' | 'ocr_layout' | 'mcp';
