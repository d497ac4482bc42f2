/**
 * Where a lone governed call's Redis CPU goes (`pnpm --filter @pgw/bench cost --stages`): the
 * governor's two scripts, as this build sends them, replayed one admit + finish at a time with each
 * script cut short at a stage, so the difference between stages is what that stage costs Redis.
 * The scripts and a call's keys and args are taken off the wire (MONITOR) from a `RedisGovernor`
 * at concurrency 1 (the args of its last pair); the server's script cache is flushed first, so that
 * ioredis, told NOSCRIPT, sends each script's text once (EVAL).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisConnection, RedisGovernor } from '@pgw/backend-redis';
import { median } from './harness.js';
import { uniqueScope } from './gateway-settings.js';
import { redisScriptUsec } from './redis-scope.js';

/** Each script's body starts here: what is above it are the bindings and the functions it defines. */
const BODY_STARTS = { governor_admit: 'local TENANT_GATE_FIRST', governor_finish: 'local now = clock(A.now)' } as const;
type Label = keyof typeof BODY_STARTS;
/** The generated bindings end with the reply constructors (`bindings()` in backend-redis's protocol.ts). */
const BINDINGS_END = "undeclared('reply'))";

interface Captured {
  readonly lua: string;
  /** EVALSHA's numkeys, keys and args of one call at concurrency 1. */
  readonly args: readonly string[];
}

/** The bench's governor: one source with room for everything it is asked (RPM and concurrency limits set). */
export function benchGovernor(redis: Redis, scopeName: string): RedisGovernor {
  return new RedisGovernor({
    redis,
    scope: uniqueScope(scopeName),
    sources: { a: { rpm: 1_000_000, tpm: 0, maxConcurrency: 1_000 } },
    global: { rpm: 0, tpm: 0, maxConcurrency: 0 },
    leaseTtlMs: 30_000,
    policy: { failureThreshold: 5, failureRate: 0.5, windowMs: 60_000, minSamples: 10, cooldownMs: 1_000, maxCooldownMs: 8_000, probeTtlMs: 5_000 },
  });
}

async function lonePairs(governor: RedisGovernor, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const admission = await governor.admit('a', 100);
    if (!admission.ok) throw new Error('stages: unexpected refusal');
    await admission.finish('success', 80);
  }
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' };

/**
 * MONITOR shows an argument escaped (Redis's `sdscatrepr`: a byte outside printable ASCII as `\xHH`);
 * the digest of the result proves it exact.
 */
export function unescapeMonitor(text: string): string {
  const bytes = text.replace(/\\(x[0-9a-f]{2}|.)/g, (_, escape: string) =>
    escape.length === 3 ? String.fromCharCode(Number.parseInt(escape.slice(1), 16)) : (ESCAPES[escape] ?? escape),
  );
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

async function capture(url: string, stats: Redis, governor: RedisGovernor): Promise<Record<Label, Captured>> {
  // The bench's own server: its scripts forgotten, the first call sends each one's text (NOSCRIPT, then EVAL).
  await stats.script('FLUSH');
  const connection = new Redis(url);
  const monitor = await connection.monitor();
  const texts = new Map<string, string>();
  const calls = new Map<string, string[]>();
  monitor.on('monitor', (_time: string, args: string[]) => {
    const [command, first] = args;
    const name = command?.toLowerCase();
    if (name === 'eval' && first !== undefined) {
      const lua = unescapeMonitor(first);
      texts.set(createHash('sha1').update(lua).digest('hex'), lua);
    }
    if (name === 'evalsha' && first !== undefined) calls.set(first, args.slice(2));
  });
  try {
    await lonePairs(governor, 200);
    // MONITOR reports in order: once it shows this marker, it has shown every script call before it.
    const marker = `stages-${randomUUID()}`;
    const shown = new Promise<void>((resolve) => monitor.on('monitor', (_time: string, args: string[]) => args[1] === marker && resolve()));
    await stats.echo(marker);
    await shown;
  } finally {
    monitor.disconnect();
    connection.disconnect();
  }
  const found: Partial<Record<Label, Captured>> = {};
  for (const [sha, lua] of texts) {
    const label = (Object.keys(BODY_STARTS) as Label[]).find((l) => lua.includes(`'${l}: undeclared `));
    const args = calls.get(sha);
    if (label !== undefined && args !== undefined) found[label] = { lua, args };
  }
  if (found.governor_admit === undefined || found.governor_finish === undefined) throw new Error('stages: the governor scripts were not seen on the wire');
  return found as Record<Label, Captured>;
}

function indexOf(lua: string, marker: string, label: string): number {
  const at = lua.indexOf(marker);
  if (at < 0) throw new Error(`stages: ${label} no longer holds ${JSON.stringify(marker)}; update the markers`);
  return at;
}

const returnAt = (lua: string, at: number) => `${lua.slice(0, at)}\nreturn {}\n`;

function stagesOf(label: Label, lua: string): Record<string, string> {
  return {
    'keys and args only': 'return {}',
    '+ bindings': returnAt(lua, indexOf(lua, BINDINGS_END, label) + BINDINGS_END.length),
    '+ definitions': returnAt(lua, indexOf(lua, BODY_STARTS[label], label)),
    whole: lua,
  };
}

/**
 * Prints, per stage, the Redis CPU µs of one admit + finish replayed back to back (medians of three
 * rounds), then the whole pair as the governor itself runs it at concurrency 1.
 */
export async function scriptStages(url: string, stats: Redis, pairs: number): Promise<void> {
  const redis = createRedisConnection(url);
  const governor = benchGovernor(redis, 'BENCH_STAGES');
  const replay = new Redis(url);
  try {
    const { governor_admit: admit, governor_finish: finish } = await capture(url, stats, governor);
    // A permit's id (a UUID) is the one field that must differ per call: the pair replayed shares a fresh one.
    const admitId = admit.args.find((arg) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(arg) && finish.args.includes(arg));
    if (admitId === undefined) throw new Error('stages: no permit id shared by the captured admit and finish');
    const withId = (args: readonly string[], id: string) => args.map((arg) => (arg === admitId ? id : arg));
    const admitStages = stagesOf('governor_admit', admit.lua);
    const finishStages = stagesOf('governor_finish', finish.lua);
    console.log(`one admit + finish replayed back to back (${pairs} pairs a round, median of 3 rounds), Redis CPU µs per pair:`);
    for (const stage of Object.keys(admitStages)) {
      const [admitSha, finishSha] = await Promise.all([replay.script('LOAD', admitStages[stage]!), replay.script('LOAD', finishStages[stage]!)]);
      const rounds: number[] = [];
      for (let round = 0; round < 4; round++) {
        const before = await redisScriptUsec(url);
        for (let i = 0; i < pairs; i++) {
          const id = randomUUID();
          await replay.call('EVALSHA', admitSha as string, ...withId(admit.args, id));
          await replay.call('EVALSHA', finishSha as string, ...withId(finish.args, id));
        }
        // The first round warms the scripts and the books up.
        if (round > 0) rounds.push(((await redisScriptUsec(url)) - before) / pairs);
      }
      console.log(`  ${stage.padEnd(20)} ${median(rounds).toFixed(1)}`);
    }
    const before = await redisScriptUsec(url);
    await lonePairs(governor, pairs);
    console.log(`  the governor's own pairs at concurrency 1 (its client's work between the scripts): ${(((await redisScriptUsec(url)) - before) / pairs).toFixed(1)}`);
    console.log(`  keys and args sent: admit ${Number(admit.args[0])} keys + ${admit.args.length - 1 - Number(admit.args[0])} args, finish ${Number(finish.args[0])} + ${finish.args.length - 1 - Number(finish.args[0])}`);
  } finally {
    replay.disconnect();
    await governor.close();
    await redis.quit();
  }
}
