/** The chat client (docs/architecture.md#public-api): assembly from env or settings, and the governed `chat` call. */
import { randomUUID } from 'node:crypto';
import { assertNoManagedKeys, coerceEffort, wellFormedDeep } from '@pgw/core/internal';
import type { BudgetStatus, Cache, ChatMessage, ChatModel, Effort, GatewaySettings, Governor, KeyBounds, KeyStatus, LLMResponse, Source } from '@pgw/core';
import { assembleChatPipeline } from '@pgw/middleware';
import type { CallOptions, ChatMiddleware, ChatPipeline, ChatStream, GatewayChatRequest } from '@pgw/middleware';
import type { ZodType } from 'zod';
import { assembleComponents } from './assembly/components.js';
import type { AssemblyOverrides } from './assembly/components.js';
import { governedSources, withModels } from './assembly/models.js';
import { openaiCompatibleFor } from './assembly/providers.js';
import {
  assertJson,
  assertMessages,
  assertRequestSize,
  commonCallOptions,
  isPlainObject,
  resolveCallDeadline,
} from './call-input.js';
import type { CommonCallOptions } from './call-input.js';
import { readTenantStatus, type TenantStatus } from './tenant-status.js';
import { readKeyStatus } from './key-status.js';
import { readBudgetStatus, type BudgetStatusOptions } from './budget-status.js';
import { readSourceStatus, type SourceStatus } from './source-status.js';
import { OwningClient, assembling } from './client-lifecycle.js';
import { requireParts, seams, type ClientParts } from './client-parts.js';
import { gatewaySettings } from './settings/construct.js';
import { runToolLoop, type RunnableTool, type ToolRunResult } from './tool-loop.js';
import { TOOL_OPTIONS, assertToolConversation, toolRequest, type ToolOptions } from './tool-options.js';
import { loadGatewaySettings } from './settings/load-env.js';
import type { LoadSettingsOptions } from './settings/load-env.js';

export interface ChatOptions extends CommonCallOptions, ToolOptions {
  /** Ask for a typed result; the parsed value lands in `response.parsed`. */
  structured?: ZodType;
  reasoningEffort?: Effort | string;
  /** Overlay of sampling parameters (temperature, max_tokens…); may not set a key a source's provider profile manages. */
  sampling?: Record<string, unknown>;
  /** Skip the cache read and write (research resampling). */
  cacheBypass?: boolean;
}

const CHAT_OPTIONS = ['structured', 'reasoningEffort', 'sampling', 'cacheBypass', ...TOOL_OPTIONS];

/** `runTools` takes every chat option; its tools may carry `execute`. */
export interface RunToolsOptions extends Omit<ChatOptions, 'tools'> {
  tools: Readonly<Record<string, RunnableTool>>;
  /** Governed calls at most (default 8). */
  maxSteps?: number;
  /** A tool that throws: its error text goes back to the model (`'report'`, default) or ends the loop (`'throw'`). */
  onToolError?: 'report' | 'throw';
}

const DEFAULT_MAX_STEPS = 8;

/** `chatStream` takes every chat option but `structured` (a re-asked answer cannot take back streamed tokens). */
export type ChatStreamOptions = Omit<ChatOptions, 'structured'>;

/**
 * Everything a GatewayClient is made of, for full injection: settings whose sources carry a model
 * (`model: openaiCompatible({…})` or your own), the governance components and seams. The client
 * closes none of it.
 */
export interface GatewayParts extends ClientParts<GatewaySettings> {
  /** Omit for no cache layer. */
  cache?: Cache;
  /** Layers of your own (redaction, guardrails…), inside the call deadline and outside the cache; `[0]` outermost. */
  middleware?: readonly ChatMiddleware[];
}

export interface GatewayClientOverrides extends AssemblyOverrides {
  /** `null` = no cache layer whatever PGW_CACHE_BACKEND says. */
  cache?: Cache | null;
  middleware?: readonly ChatMiddleware[];
}

/** A chat call's arguments, checked: the pipeline's request and call options. */
interface ValidatedChat {
  request: GatewayChatRequest;
  call: CallOptions;
}

export class GatewayClient extends OwningClient {
  readonly settings: GatewaySettings;
  readonly #pipeline: ChatPipeline;
  readonly #callDeadlineMs: number | undefined;
  readonly #governor: Governor;
  readonly #sources: readonly Source<ChatModel>[];
  /** Each key a source's model manages → the first such source: a call's sampling is checked per key it sets, not per source. */
  readonly #managedBy = new Map<string, number>();

  /** Settings from `{SCOPE}__…` env keys (process env over an optional `.env` file), then `fromSettings`. */
  static async fromEnv(scope = 'LLM', options: LoadSettingsOptions & GatewayClientOverrides = {}): Promise<GatewayClient> {
    const { env, envFile, ...overrides } = options;
    const settings = loadGatewaySettings(scope, { env, envFile, ...(overrides.warn && { warn: overrides.warn }) });
    return GatewayClient.fromSettings(settings, overrides);
  }

  /**
   * Builds the backends the settings name (or takes them from `overrides`) and a model for every
   * source described by its endpoint; closes what it built on `close()`.
   */
  static async fromSettings(settings: GatewaySettings, overrides: GatewayClientOverrides = {}): Promise<GatewayClient> {
    const valid = gatewaySettings(settings);
    const { value: client, owned } = await assembling(async (owned) => {
      const components = await assembleComponents(valid, overrides, owned);
      const withModel = withModels(valid, openaiCompatibleFor(overrides, owned), owned);
      const { now, sleep, rng, warn, callDeadlineMs, middleware } = overrides;
      return new GatewayClient({ ...components, settings: withModel, now, sleep, rng, warn, callDeadlineMs, middleware });
    });
    client.adopt(owned);
    return client;
  }

  constructor(parts: GatewayParts) {
    super();
    requireParts(parts, 'GatewayClient', ['governor']);
    this.#governor = parts.governor;
    this.settings = gatewaySettings(parts.settings);
    this.#callDeadlineMs = resolveCallDeadline(parts.callDeadlineMs, this.settings.callDeadlineMs, 'GatewayClient(callDeadlineMs)');
    this.#sources = governedSources<ChatModel>(this.settings, ['generate'], 'GatewayClient');
    this.#sources.forEach(({ model }, index) => {
      for (const key of model.managedKeys) if (!this.#managedBy.has(key)) this.#managedBy.set(key, index);
    });
    this.#pipeline = assembleChatPipeline({
      settings: { ...this.settings, sources: this.#sources },
      governor: parts.governor,
      ...(parts.cache && { cache: parts.cache }),
      ...(parts.recorder && { recorder: parts.recorder }),
      ...(parts.pricing && { pricing: parts.pricing }),
      subscribers: parts.subscribers,
      middleware: parts.middleware,
      ...seams(parts),
    });
  }

  /** A tenant's use of the scope now: each gate's use and bound, its budget, its calls waiting here (`""` = calls without a tenant). */
  tenantStatus(tenantId: string): Promise<TenantStatus> {
    this.assertOpen('tenantStatus');
    return readTenantStatus(this.#governor, tenantId, (id) => this.#pipeline.waiting(id), 'GatewayClient');
  }

  /** A stored key's use of the scope now (RPM, TPM, in flight) and its budget's settled spend in the current window. */
  keyStatus(bounds: KeyBounds): Promise<KeyStatus> {
    this.assertOpen('keyStatus');
    return readKeyStatus(this.#governor, bounds, 'GatewayClient');
  }

  /** Each source's breaker (state, open until) and its RPM, TPM and concurrency use against its bounds, now. */
  sourceStatus(): Promise<SourceStatus[]> {
    this.assertOpen('sourceStatus');
    return readSourceStatus(this.#governor, this.settings.sources);
  }

  /** The spend budget a call of `options.tenantId` spends, now: spent, reserved, budget, resetAt. Undefined without a budget. */
  budgetStatus(options: BudgetStatusOptions = {}): Promise<BudgetStatus | undefined> {
    this.assertOpen('budgetStatus');
    return readBudgetStatus(this.#governor, options, 'GatewayClient');
  }

  /** One governed logical call. Arguments are validated before it starts (no stats, no telemetry row). */
  chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<LLMResponse> {
    // Promise handlers, not an async function (docs/decisions.md#lean-hot-path); a bad argument still rejects.
    let valid: ValidatedChat;
    try {
      valid = this.#validated('chat', messages, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#pipeline.run(valid.request, valid.call);
  }

  /**
   * The same governed call, its content streamed as it arrives (docs/architecture.md#beyond-the-port): iterate the deltas, await
   * `response` for the whole answer, or both. Retry and failover happen only before the first content
   * token; see the README ("Streaming"). Arguments are validated before anything starts: a bad one —
   * `structured` included — throws at once.
   */
  chatStream(messages: ChatMessage[], options: ChatStreamOptions = {}): ChatStream {
    const { request, call } = this.#validated('chatStream', messages, options);
    return this.#pipeline.stream(request, call);
  }

  /**
   * A governed multi-step tool loop (see the README, "Tool calling"): each step one governed call,
   * the step's tool calls executed in parallel under the call's signal, their results sent back as
   * tool messages, until an answer without tool calls or `maxSteps` — all under ONE call deadline.
   * Every step's telemetry rows share one `logicalCallId` (returned). Arguments are validated first.
   */
  async runTools(messages: ChatMessage[], options: RunToolsOptions): Promise<ToolRunResult> {
    const { maxSteps = DEFAULT_MAX_STEPS, onToolError = 'report', ...chatOptions } = options ?? ({} as RunToolsOptions);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new TypeError(`runTools(maxSteps) must be an integer >= 1, got ${String(maxSteps)}`);
    if (onToolError !== 'report' && onToolError !== 'throw') throw new TypeError(`runTools(onToolError) must be 'report' or 'throw'`);
    if (chatOptions.tools === undefined) throw new TypeError('runTools(tools) is required');
    const { request, call } = this.#validated('runTools', messages, chatOptions, ['execute']);
    for (const [name, tool] of Object.entries(chatOptions.tools)) {
      if (tool.execute !== undefined && typeof tool.execute !== 'function') throw new TypeError(`runTools(tools.${name}.execute) must be a function`);
    }
    const { callDeadlineMs, signal, ...dimensions } = call;
    const logicalCallId = randomUUID();
    const plan = { tools: chatOptions.tools, maxSteps, onToolError, logicalCallId, scope: this.settings.scope, deadlineMs: callDeadlineMs, signal };
    return runToolLoop(messages, plan, (conversation, timeLeft) =>
      this.#pipeline.run(
        { ...request, messages: conversation },
        { ...dimensions, logicalCallId, ...(signal && { signal }), ...(timeLeft !== undefined && { callDeadlineMs: timeLeft }) },
      ),
    );
  }

  /** The first source (configured order) whose model manages a key the sampling sets refuses the call. */
  #assertUnmanaged(sampling: Record<string, unknown>, method: string): void {
    let first: number | undefined;
    for (const key of Object.keys(sampling)) {
      const at = this.#managedBy.get(key);
      if (at !== undefined && (first === undefined || at < first)) first = at;
    }
    if (first === undefined) return;
    const { name, model } = this.#sources[first]!;
    assertNoManagedKeys(model.managedKeys, sampling, `${method}(sampling)`, `the model of source '${name}' (${model.provider} ${model.modelId})`);
  }

  /** Validates a chat call's arguments before anything starts; returns the pipeline's request and call options. */
  #validated(
    method: 'chat' | 'chatStream' | 'runTools',
    messages: ChatMessage[],
    options: ChatOptions,
    toolKeys: readonly string[] = [],
  ): ValidatedChat {
    this.assertOpen(method);
    assertMessages(messages, `${method}(messages)`);
    assertToolConversation(messages, `${method}(messages)`);
    const call = commonCallOptions(options, method, CHAT_OPTIONS, this.#callDeadlineMs);
    const tools = toolRequest(options, method, toolKeys);
    const { structured, reasoningEffort, sampling = {}, cacheBypass } = options;
    if (structured !== undefined && method === 'chatStream') {
      throw new TypeError(
        'chatStream(structured) is not supported: streamed tokens cannot be taken back by a structured re-ask; use chat()',
      );
    }
    if (structured !== undefined && typeof (structured as { safeParse?: unknown }).safeParse !== 'function') {
      throw new TypeError(`${method}(structured) must be a zod schema`);
    }
    if (cacheBypass !== undefined && typeof cacheBypass !== 'boolean') throw new TypeError(`${method}(cacheBypass) must be a boolean`);
    const effort = reasoningEffort === undefined ? undefined : coerceEffort(reasoningEffort, `${method}(reasoningEffort)`);
    if (!isPlainObject(sampling)) throw new TypeError(`${method}(sampling) must be a plain object`);
    assertJson(sampling, `${method}(sampling)`, 0);
    this.#assertUnmanaged(sampling, method);
    // A lone surrogate has no UTF-8 form: made U+FFFD here, so the upstream, the cache key and telemetry see the same text.
    const sent = { messages: wellFormedDeep(messages), sampling: wellFormedDeep(sampling) };
    assertRequestSize(sent, `${method}(messages)`, this.settings);

    const request: GatewayChatRequest = {
      ...sent,
      ...(effort && { reasoningEffort: effort }),
      ...(structured && { structured }),
      ...tools,
    };
    return { request, call: { ...call, ...(effort && { reasoningEffort: effort }), ...(cacheBypass && { cacheBypass }) } };
  }
}
