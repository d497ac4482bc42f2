/**
 * The MCP tool calls' governance, on the governor model calls use (memory, or Redis: exact across a
 * fleet), as two scopes (docs/decisions.md#mcp-tool-servers-at-the-door-issue-48): `PGW_MCP`, whose sources are the
 * upstream servers (each server's RPM, concurrency and breaker; the tenants' bounds and weights of
 * `PGW_MCP__TENANT__…`, `PGW_MCP__TENANTS`), and `PGW_MCP_TOOLS`, whose sources are the tools with
 * limits of their own (their leases are finished without a verdict: no breaker per tool). A call
 * whose server's breaker is open is refused at once; otherwise it holds its tool's lease, then its
 * server's; a full gate waits in the governor's line (its retry hint, or sooner when room is freed)
 * until the call's deadline.
 */
import { randomUUID } from 'node:crypto';
import { loadGatewaySettings, openGovernance, type EnvRecord, type Governance } from '@pgw/client';
import type { BreakerSnapshot, BreakerVerdict, Caller, Governor, Lease } from '@pgw/core';
import { McpServerUnavailableError } from './errors.js';
import type { McpSettings } from './settings.js';

export const SERVER_SCOPE = 'PGW_MCP';
const TOOL_SCOPE = 'PGW_MCP_TOOLS';
/** The keys of the MCP scope itself that the governor reads (the rest of `PGW_MCP__` is the door's): the tenants' bounds and the servers' breaker. */
const PASSED = ['TENANT__RPM', 'TENANT__MAX_CONCURRENCY', 'TENANTS'];
const PASSED_PREFIX = `${SERVER_SCOPE}__BREAKER__`;

/** One call's two leases; `finish` gives both back, the verdict going to its server's breaker. */
export interface HeldCall {
  finish(verdict: BreakerVerdict | undefined): Promise<void>;
}

export class McpGovernance {
  readonly #servers: Governance;
  readonly #tools: Governance | undefined;
  /** `<server>\n<tool>` → its source in the tool scope. */
  readonly #toolSources: ReadonlyMap<string, string>;

  private constructor(servers: Governance, tools: Governance | undefined, toolSources: ReadonlyMap<string, string>) {
    this.#servers = servers;
    this.#tools = tools;
    this.#toolSources = toolSources;
  }

  static async open(settings: McpSettings, env: EnvRecord, warn: (message: string) => void): Promise<McpGovernance> {
    const base = Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('PGW_MCP')));
    const serverEnv: Record<string, string | undefined> = { ...base };
    for (const suffix of PASSED) serverEnv[`${SERVER_SCOPE}__${suffix}`] = env[`${SERVER_SCOPE}__${suffix}`];
    for (const [key, value] of Object.entries(env)) if (key.startsWith(PASSED_PREFIX)) serverEnv[key] = value;
    const toolEnv: Record<string, string | undefined> = { ...base };
    const toolSources = new Map<string, string>();
    for (const server of settings.servers.values()) {
      Object.assign(serverEnv, sourceKeys(SERVER_SCOPE, server.name, server.rpm, server.maxConcurrency, server.timeoutMs));
      for (const [tool, policy] of server.tools) {
        if (policy.rpm === 0 && policy.maxConcurrency === 0) continue;
        const source = `${server.name}-t${toolSources.size}`;
        toolSources.set(`${server.name}\n${tool}`, source);
        Object.assign(toolEnv, sourceKeys(TOOL_SCOPE, source, policy.rpm, policy.maxConcurrency, server.timeoutMs));
      }
    }
    const servers = await openGovernance(loadGatewaySettings(SERVER_SCOPE, { env: serverEnv, warn }), { telemetry: true, warn });
    try {
      const tools = toolSources.size === 0 ? undefined : await openGovernance(loadGatewaySettings(TOOL_SCOPE, { env: toolEnv, warn }), { telemetry: false, warn });
      return new McpGovernance(servers, tools, toolSources);
    } catch (error) {
      await servers.close().catch(() => undefined);
      throw error;
    }
  }

  get recorder() {
    return this.#servers.recorder;
  }

  /**
   * Holds room for one call of `tool` at `server` for `caller`, waiting for it while a gate is full;
   * an open breaker is McpServerUnavailableError at once (a dead server is skipped, not hammered).
   */
  async enter(server: string, tool: string | undefined, caller: Caller, signal: AbortSignal): Promise<HeldCall> {
    const breaker = await this.breakerOf(server);
    if (breaker?.state === 'open') throw new McpServerUnavailableError(server, 'circuit_open', Math.max(1, breaker.openUntil - Date.now()));
    // The tool's room first: a call waiting for its tool holds none of its server's room, so other tools of the server go on.
    const toolSource = tool === undefined ? undefined : this.#toolSources.get(`${server}\n${tool}`);
    const toolLease = toolSource === undefined ? undefined : await admitted(this.#tools!.governor, toolSource, caller, signal, () => new Error('a tool lease has no breaker verdict'));
    let serverLease: Lease;
    try {
      serverLease = await admitted(this.#servers.governor, server, caller, signal, (retryAfterMs) => new McpServerUnavailableError(server, 'circuit_open', retryAfterMs));
    } catch (error) {
      await toolLease?.finish(undefined, 0);
      throw error;
    }
    return {
      finish: async (verdict) => {
        await Promise.allSettled([serverLease.finish(verdict, 0), toolLease?.finish(undefined, 0)]);
      },
    };
  }

  breakerOf(server: string): Promise<BreakerSnapshot | undefined> {
    return Promise.resolve(this.#servers.governor.breakerSnapshot?.(server));
  }

  async inflightOf(server: string): Promise<number> {
    return (await this.#servers.governor.sourceStats(server)).inflight;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#servers.close(), this.#tools?.close()]);
  }
}

function sourceKeys(scope: string, source: string, rpm: number, maxConcurrency: number, timeoutMs: number): Record<string, string> {
  const prefix = `${scope}__SOURCE__${source.toUpperCase()}__`;
  // The governor reads the limits only; the endpoint keys are the schema's due and never dialled.
  return { [`${prefix}MODEL`]: 'mcp', [`${prefix}BASE_URL`]: 'http://mcp.invalid/', [`${prefix}RPM`]: String(rpm), [`${prefix}MAX_CONCURRENCY`]: String(maxConcurrency), [`${prefix}TIMEOUT_S`]: String(timeoutMs / 1000) };
}

/** Admission at `source`, waiting in the governor's line while a gate is full; gives up its place whatever happens. */
async function admitted(governor: Governor, source: string, caller: Caller, signal: AbortSignal, circuitOpen: (retryAfterMs: number) => Error): Promise<Lease> {
  const turn = randomUUID();
  try {
    for (;;) {
      signal.throwIfAborted();
      const answer = await governor.admit(source, 0, turn, undefined, caller);
      if (answer.ok) return answer;
      if (answer.refusal !== undefined) throw circuitOpen(answer.refusal.retryAfterMs);
      if ('budget' in answer) throw new Error(`the MCP scope keeps no budget, yet ${source} was refused one`);
      await roomOrHint(governor, answer.retryAfterMs, signal);
    }
  } finally {
    await Promise.resolve(governor.leaveLine?.(turn)).catch(() => undefined);
  }
}

/** Sleeps until the retry hint, or until room is freed anywhere in the fleet, or the signal aborts (which rejects). */
function roomOrHint(governor: Governor, retryAfterMs: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribe?.();
      signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, Math.max(1, retryAfterMs));
    const unsubscribe = governor.onRoomFreed?.(() => {
      done();
      resolve();
    });
    signal.addEventListener('abort', aborted, { once: true });
  });
}
