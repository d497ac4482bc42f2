import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import { optionalPositiveMs, type Clock, type GateOutcome, type GateTicket, type GovernedAdmission, type Governor } from '@pgw/core';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { parseAcquireReply, probeTokenOf, RedisGate, type RedisGateOptions } from './gate.js';
import { parseDenial, RedisLimiter, type EntryPlan, type RedisLimiterOptions } from './limiter.js';
import { ADMIT_LUA, FINISH_LUA } from './lua/governor.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ADMIT = luaScript('governor_admit', ADMIT_LUA, 10);
const FINISH = luaScript('governor_finish', FINISH_LUA, 10);

export type RedisGovernorOptions = RedisLimiterOptions & Pick<RedisGateOptions, 'policy'>;

/**
 * A scope's breaker and limiter on one Redis, with the combined `Governor` capability: one script
 * before an attempt (breaker admission + six gates), one after (breaker verdict + settle + release).
 * `limiter` and `gate` are the same books through the two ports (stats, snapshots, direct use).
 */
export class RedisGovernor implements Governor {
  readonly limiter: RedisLimiter;
  readonly gate: RedisGate;
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisGovernorOptions) {
    this.limiter = new RedisLimiter(options);
    this.gate = new RedisGate({ ...options, sources: Object.keys(options.sources) });
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
  }

  async admit(source: string, estTokens: number): Promise<GovernedAdmission> {
    const breaker = this.gate.keysOf(source);
    const plan = this.limiter.planEntry(source, estTokens);
    const token = randomUUID();
    const keys = [breaker.state, breaker.samples, ...plan.keys];
    const verdict = await failClosed(this.#scope, 'admit', async () => {
      const reply = await this.#run(ADMIT, keys, [plan.id, token, ...this.gate.probeArgs, estTokens, ...plan.limits, ...plan.enterArgs]);
      return Array.isArray(reply) && reply[0] === 2 ? parseDenial(reply) : parseAcquireReply(reply, source, token);
    });
    if (!verdict.ok) return 'gate' in verdict ? verdict : { ok: false, refusal: verdict };
    const ticket = verdict;
    const permit = plan.permit((actualTokens, verdict) => this.#finish(keys, ticket, plan, actualTokens, verdict));
    return { ok: true, ticket, permit, finish: (verdict, actualTokens) => permit.finish(actualTokens, verdict) };
  }

  async #finish(
    keys: readonly string[],
    ticket: GateTicket,
    plan: EntryPlan,
    actualTokens: number,
    verdict: GateOutcome | undefined,
  ): Promise<void> {
    const args = [ticket.epoch, probeTokenOf(ticket), verdict ?? '', ...this.gate.policyArgs(), ...plan.settleArgs(actualTokens)];
    numbers(await failClosed(this.#scope, 'finish', () => this.#run(FINISH, keys, args)), 3);
  }

  #run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return runScript(this.#redis, script, keys, [clockArg(this.#now), ...args], this.#timeoutMs);
  }
}
