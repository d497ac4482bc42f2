/**
 * The door's MCP gateway: the tools of every upstream server a caller may use, named
 * `<server>__<tool>` (names.ts), and each call forwarded to its server under the governance
 * (governance.ts: the server's and the tool's limits, the tenant's, the breaker, the deadline),
 * retried only when the tool is idempotent, and audited (audit.ts). A server that cannot be listed is
 * named in the list's `_meta`, never left out in silence.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EnvRecord } from '@pgw/client';
import type { Priority } from '@pgw/core';
import type { ServerMetrics } from '../operations/metrics.js';
import { McpAudit, type ToolOutcome } from './audit.js';
import { McpCallTimeoutError, McpServerUnavailableError } from './errors.js';
import { McpGovernance, type HeldCall } from './governance.js';
import { mayUseServer, mayUseTool, publicName, splitName, type McpGrant } from './names.js';
import type { McpSettings } from './settings.js';
import { Upstream, type UpstreamHealth } from './upstreams.js';

/** The `_meta` key naming the servers a list left out, each with why. */
export const UNAVAILABLE_META = 'pgw/unavailable';
/** An idempotent tool's call is tried at most this many times (the others once). */
const IDEMPOTENT_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 200;
/** Pages of an upstream's tool list read at most (a server answering cursors forever is cut short). */
const MAX_PAGES = 50;

/** Who calls and for which request. */
export interface McpCaller extends McpGrant {
  readonly tenantId?: string;
  readonly priority: Priority;
}

export interface McpServerStatus {
  server: string;
  transport: 'stdio' | 'http';
  health: UpstreamHealth;
  breaker: string;
  inflight: number;
  waitingHere: number;
  recentErrors: string[];
}

export interface Unavailable {
  server: string;
  reason: string;
}

export class McpGateway {
  readonly #upstreams: ReadonlyMap<string, Upstream>;
  readonly #governance: McpGovernance;
  readonly #audit: McpAudit;
  readonly #logArguments: boolean;
  /** Each connection's tool list, kept for the idempotency hints (a restarted server is listed again). */
  readonly #tools = new WeakMap<Client, ReadonlyMap<string, Tool>>();
  /** Calls of this process waiting for room, by server. */
  readonly #waiting = new Map<string, number>();

  constructor(upstreams: ReadonlyMap<string, Upstream>, governance: McpGovernance, audit: McpAudit, logArguments: boolean) {
    this.#upstreams = upstreams;
    this.#governance = governance;
    this.#audit = audit;
    this.#logArguments = logArguments;
  }

  /** The gateway of `settings`: its governance opened now, each upstream on its first use. */
  static async open(settings: McpSettings, env: EnvRecord, metrics: ServerMetrics, warn: (message: string) => void): Promise<McpGateway> {
    const governance = await McpGovernance.open(settings, env, warn);
    const upstreams = new Map([...settings.servers].map(([name, server]) => [name, new Upstream(server)]));
    return new McpGateway(upstreams, governance, new McpAudit(governance.recorder, metrics, settings.logArguments), settings.logArguments);
  }

  get upstreams(): Iterable<Upstream> {
    return this.#upstreams.values();
  }

  get governance(): McpGovernance {
    return this.#governance;
  }

  async listTools(caller: McpCaller, signal: AbortSignal): Promise<{ tools: Tool[]; _meta?: Record<string, unknown> }> {
    const usable = [...this.#upstreams.values()].filter((upstream) => mayUseServer(caller, upstream.name));
    const lists = await Promise.all(usable.map((upstream) => this.#listed(upstream, signal)));
    const tools: Tool[] = [];
    const unavailable: Unavailable[] = [];
    lists.forEach((listed, index) => {
      const server = usable[index]!.name;
      if ('reason' in listed) return unavailable.push({ server, reason: listed.reason });
      for (const tool of listed.tools.values()) if (mayUseTool(caller, server, tool.name)) tools.push({ ...tool, name: publicName(server, tool.name) });
    });
    return { tools, ...(unavailable.length > 0 && { _meta: { [UNAVAILABLE_META]: unavailable } }) };
  }

  /** Forwards one call; a name the caller may not use is -32602 naming it, never forwarded. */
  async callTool(caller: McpCaller, name: string, args: Record<string, unknown> | undefined, signal: AbortSignal, requestId: string | undefined): Promise<CallToolResult> {
    const parts = splitName(name);
    const upstream = parts === undefined ? undefined : this.#upstreams.get(parts.server);
    if (parts === undefined || upstream === undefined || !mayUseTool(caller, parts.server, parts.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 200)} (no upstream server offers it to this key)`);
    }
    const { timeoutMs } = upstream.settings;
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const record = { server: upstream.name, tool: parts.name, tenantId: caller.tenantId ?? '', priority: caller.priority, requestId, startedAt: performance.now(), ...(this.#logArguments && { arguments: args }) };
    let attempts = 0;
    let outcome: ToolOutcome = 'failed';
    let failure: unknown;
    let answer: CallToolResult | undefined;
    try {
      const tries = (await this.#idempotent(upstream, parts.name, deadline)) ? IDEMPOTENT_ATTEMPTS : 1;
      for (;;) {
        attempts += 1;
        try {
          answer = await this.#attempt(upstream, parts.name, args, caller, deadline);
          outcome = answer.isError === true ? 'tool_error' : 'ok';
          return answer;
        } catch (error) {
          if (attempts >= tries || !retriable(error) || deadline.aborted) throw error;
          await pause(RETRY_PAUSE_MS, deadline);
        }
      }
    } catch (error) {
      failure = signal.aborted ? error : deadline.aborted ? new McpCallTimeoutError(upstream.name, timeoutMs) : error;
      outcome = signal.aborted ? 'cancelled' : 'failed';
      throw failure;
    } finally {
      this.#audit.toolCall({ ...record, attempts, outcome, ...(failure !== undefined && { error: failure }), ...(this.#logArguments && answer !== undefined && { result: answer }) });
    }
  }

  /** One attempt under a held lease: the breaker hears how the server did (a protocol error is the server working). */
  async #attempt(upstream: Upstream, tool: string, args: Record<string, unknown> | undefined, caller: McpCaller, deadline: AbortSignal): Promise<CallToolResult> {
    this.#waiting.set(upstream.name, (this.#waiting.get(upstream.name) ?? 0) + 1);
    let held: HeldCall;
    try {
      held = await this.#governance.enter(upstream.name, tool, { tenantId: caller.tenantId ?? '', priority: caller.priority }, deadline);
    } finally {
      this.#waiting.set(upstream.name, this.#waiting.get(upstream.name)! - 1);
    }
    let verdict: 'success' | 'failure' | 'invalid' | undefined;
    try {
      const client = await upstream.connected();
      const result = (await client.callTool({ name: tool, ...(args !== undefined && { arguments: args }) }, undefined, { signal: deadline, timeout: upstream.settings.timeoutMs })) as CallToolResult;
      verdict = 'success';
      return result;
    } catch (error) {
      // A call its caller gave up, or one refused in the server's restart backoff (nothing was tried), tells the breaker nothing.
      verdict = (deadline.aborted && !isTimeout(error)) || inBackoff(error) ? undefined : error instanceof McpError && !isTimeout(error) ? 'invalid' : 'failure';
      if (verdict === 'failure') upstream.noteError(error);
      throw error;
    } finally {
      await held.finish(verdict);
    }
  }

  async #idempotent(upstream: Upstream, tool: string, signal: AbortSignal): Promise<boolean> {
    if (upstream.settings.tools.get(tool)?.idempotent === true) return true;
    const listed = await this.#listed(upstream, signal);
    return 'tools' in listed && listed.tools.get(tool)?.annotations?.idempotentHint === true;
  }

  /** The upstream's tools (its list kept per connection), or why it cannot be listed now. */
  async #listed(upstream: Upstream, signal: AbortSignal): Promise<{ tools: ReadonlyMap<string, Tool> } | { reason: string }> {
    const breaker = await this.#governance.breakerOf(upstream.name);
    if (breaker !== undefined && breaker.state === 'open') return { reason: 'circuit_open' };
    try {
      const client = await upstream.connected();
      const kept = this.#tools.get(client);
      if (kept !== undefined) return { tools: kept };
      const tools = new Map<string, Tool>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: upstream.settings.timeoutMs });
        for (const tool of answer.tools) tools.set(tool.name, tool);
        cursor = answer.nextCursor;
        if (cursor === undefined) break;
      }
      this.#tools.set(client, tools);
      return { tools };
    } catch (error) {
      upstream.noteError(error);
      return { reason: error instanceof McpServerUnavailableError ? error.reason : 'unreachable' };
    }
  }

  /** Each server as the operator sees it: its connection, its breaker and calls in flight (the fleet's, on Redis), the calls waiting here, its recent errors. */
  async status(): Promise<McpServerStatus[]> {
    return Promise.all(
      [...this.#upstreams.values()].map(async (upstream) => ({
        server: upstream.name,
        transport: upstream.settings.transport.kind,
        health: upstream.health,
        breaker: (await this.#governance.breakerOf(upstream.name))?.state ?? 'closed',
        inflight: await this.#governance.inflightOf(upstream.name),
        waitingHere: this.#waiting.get(upstream.name) ?? 0,
        recentErrors: [...upstream.recentErrors],
      })),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#upstreams.values()].map((upstream) => upstream.close()));
    await this.#governance.close();
  }
}

const inBackoff = (error: unknown) => error instanceof McpServerUnavailableError && error.cause === undefined;
const isTimeout = (error: unknown) => error instanceof McpError && error.code === ErrorCode.RequestTimeout;
/** Worth another try of an idempotent tool: the server or the way to it failed, not the request. */
const retriable = (error: unknown) =>
  !(error instanceof McpServerUnavailableError) && (!(error instanceof McpError) || isTimeout(error) || error.code === ErrorCode.ConnectionClosed);

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', aborted, { once: true });
  });
}
