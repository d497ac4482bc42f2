/**
 * Child process entry for benchmark 3: one worker of a fleet sharing a Redis limiter scope. On 'run'
 * it loops tryEnter → settle(actual) → release for a fixed number of admissions and reports what it settled.
 */
import { createRedisConnection, RedisLimiter } from '@pgw/backend-redis';
import { serveParent, type ChildRequest } from './child.js';
import { GOVERNANCE_EST_TOKENS, GOVERNANCE_LIMITS, GOVERNANCE_SOURCE, settledTokens } from './governance-plan.js';
import { redisReady } from './redis-scope.js';

const [redisUrl, scope] = process.argv.slice(2) as [string, string];
const redis = createRedisConnection(redisUrl);
await redisReady(redis, redisUrl);
const limiter = new RedisLimiter({ redis, scope, ...GOVERNANCE_LIMITS });

interface RunRequest extends ChildRequest {
  worker: number;
  admissions: number;
  inFlight: number;
}

async function run({ worker, admissions, inFlight }: RunRequest) {
  let next = 0;
  let denied = 0;
  let settled = 0;
  const enter = async () => {
    for (;;) {
      const admission = await limiter.tryEnter(GOVERNANCE_SOURCE, GOVERNANCE_EST_TOKENS);
      if (admission.ok) return admission.permit;
      // The limits are never reached; a denial means the scope is shared with something else.
      if (++denied > admissions) throw new Error(`denied ${denied} times (gate ${admission.gate})`);
    }
  };
  const loop = async (): Promise<void> => {
    while (next < admissions) {
      const i = next++;
      const permit = await enter();
      const actual = settledTokens(worker, i);
      try {
        await permit.settle(actual);
        settled += actual;
      } finally {
        await permit.release();
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, loop));
  return { admitted: admissions, denied, settled, elapsedMs: performance.now() - started };
}

serveParent(
  async (request) => {
    if (request.type === 'ready') return {};
    if (request.type === 'run') return run(request as RunRequest);
    throw new Error(`unknown request ${request.type}`);
  },
  async () => {
    await redis.quit();
  },
);
