import { Cluster } from 'ioredis';
import type { RedisClient } from './connection.js';
import { createHash } from 'node:crypto';
import type { Clock } from '@pgw/core';
import { whenReady } from './readiness.js';

/** A Lua script registered on a connection with `defineCommand` (EVALSHA, EVAL on NOSCRIPT). */
export interface LuaScript {
  /** Command name on the connection; carries a digest so two versions never shadow each other. */
  readonly name: string;
  readonly lua: string;
}

/** A script that takes as many keys as each call passes (a call's items bring their own). */
export function luaScript(label: string, lua: string): LuaScript {
  const digest = createHash('sha1').update(lua).digest('hex').slice(0, 12);
  return { name: `pgw_${label}_${digest}`, lua };
}

/**
 * The first ARGV of every clocked script: '' (the script reads Redis `TIME`), or — the test seam —
 * the injected clock's reading, which the script then uses instead.
 */
export function clockArg(now: Clock | undefined): string {
  return now === undefined ? '' : String(now());
}

type ScriptCommand = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/**
 * Runs `script` and resolves with its reply, or rejects within `timeoutMs` — whether the
 * connection is down, still connecting past the bound, or the reply never comes. One timeout
 * mechanism per script: on a ready connection with its own `commandTimeout` (createRedisConnection's)
 * the command is sent as is and that timeout bounds it; otherwise a timer of `timeoutMs` does. A
 * call that timed out waiting for a connection attempt is never sent once the attempt succeeds: its
 * caller was already told it failed.
 */
export function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  timeoutMs: number,
): Promise<unknown> {
  if (redis.status === 'ready' && ownCommandTimeout(redis) !== undefined) return send(redis, script, keys, args);
  return runWithin(redis, script, keys, args, timeoutMs);
}

/** The connection's own per-command timeout (a cluster client's is in its node options), if any. */
function ownCommandTimeout(redis: RedisClient): number | undefined {
  return redis instanceof Cluster ? redis.options.redisOptions?.commandTimeout : redis.options.commandTimeout;
}

async function runWithin(
  redis: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  timeoutMs: number,
): Promise<unknown> {
  // A plain flag, not an AbortController: it is only read, and a signal costs microseconds per script.
  const deadline = { passed: false };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.passed = true;
      reject(new Error(`redis did not answer ${script.name} within ${timeoutMs} ms (status ${redis.status})`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([invoke(redis, script, keys, args, deadline), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function invoke(
  redis: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  deadline: { readonly passed: boolean },
): Promise<unknown> {
  await whenReady(redis);
  if (deadline.passed) throw new Error(`${script.name} not sent: its deadline passed while connecting`);
  return send(redis, script, keys, args);
}

function send(redis: RedisClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  const commands = redis as unknown as Record<string, ScriptCommand | undefined>;
  if (typeof commands[script.name] !== 'function') redis.defineCommand(script.name, { lua: script.lua });
  const command = commands[script.name] as ScriptCommand;
  return command.call(redis, keys.length, ...keys, ...args);
}
