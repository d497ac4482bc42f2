/**
 * Builds the components a settings value asks for (docs/architecture.md#configuration assembly keys). Memory backends are
 * imported statically; the Redis and telemetry adapters only on demand (they are optional packages).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InMemoryBreaker, InMemoryCache, InMemoryGovernor, InMemoryLimiter } from '@pgw/backend-memory';
import { DEFAULT_PRICING, governorOf, parsePricingTable } from '@pgw/core';
import { findModelPrice, tenantsBounded } from '@pgw/core/internal';
import type { Breaker, Cache, GatewaySettings, GatewaySubscriber, Governor, Limiter, PricingTable, TelemetryRecorder } from '@pgw/core';
import { SettingsError } from '../settings/settings-error.js';
import type { ClientSeams } from '../client-parts.js';
import type { Dispatcher } from './providers.js';
import { loadOptional } from './optional-package.js';
import { closeWith, type OwnedResources } from './owned-resources.js';
import { connectRedis } from './redis-connection.js';

/** Components and seams a client accepts instead of building its own. Injected parts are never closed by the client. */
export interface AssemblyOverrides extends ClientSeams {
  /** Replaces the governor the settings' backends would build (`governorOf` joins a separate limiter and breaker). */
  governor?: Governor;
  /** The HTTP dispatcher of every model the client builds (ProxyAgent, MockAgent, interceptors). Never closed by the client. */
  dispatcher?: Dispatcher;
}

export interface Components {
  governor: Governor;
  cache?: Cache;
  recorder?: TelemetryRecorder;
  pricing: PricingTable;
  /** The overrides' subscribers, then OpenTelemetry's when `PGW_OTEL=on`. */
  subscribers: readonly GatewaySubscriber[];
}

/**
 * Builds what `overrides` does not supply. `cache`: `null` = no cache layer, `undefined` = as the
 * settings say, `false` = this client has no cache layer at all (embedding, OCR).
 */
export async function assembleComponents(
  settings: GatewaySettings,
  overrides: AssemblyOverrides & { cache?: Cache | null | false },
  owned: OwnedResources,
): Promise<Components> {
  const { backends } = settings;
  const wantsCache = overrides.cache === undefined;
  const redisFor = [
    overrides.governor === undefined && backends.limiter === 'redis' && 'PGW_LIMITER_BACKEND=redis',
    overrides.governor === undefined && backends.breaker === 'redis' && 'PGW_BREAKER_BACKEND=redis',
    wantsCache && backends.cache === 'redis' && 'PGW_CACHE_BACKEND=redis',
  ].filter((reason): reason is string => typeof reason === 'string');
  const redis = redisFor.length > 0 ? await redisComponents(settings, redisFor.join(', '), owned) : undefined;
  const clock = overrides.now ? { now: overrides.now } : {};

  const governor = overrides.governor ?? buildGovernor(settings, redis, owned, clock);
  let cache: Cache | undefined = overrides.cache || undefined;
  if (wantsCache && backends.cache === 'redis') cache = redis?.cache();
  if (wantsCache && backends.cache === 'memory') cache = closeWith(owned, new InMemoryCache(clock));
  const recorder = overrides.recorder ?? (await createRecorder(settings, overrides.warn, owned));
  const pricing = overrides.pricing ?? (await loadPricing(settings));
  assertBudgetPriced(settings, pricing);
  const subscribers = [...(overrides.subscribers ?? []), ...(backends.otel ? [await otelSubscriber()] : [])];
  return { governor, pricing, subscribers, ...(cache && { cache }), ...(recorder && { recorder }) };
}

/** One backend's own governor when limiter and breaker share a backend; else the two joined by `governorOf`. */
function buildGovernor(
  settings: GatewaySettings,
  redis: Awaited<ReturnType<typeof redisComponents>> | undefined,
  owned: OwnedResources,
  clock: { now?: () => number },
): Governor {
  const { limiter: limiterBackend, breaker: breakerBackend } = settings.backends;
  if (limiterBackend === breakerBackend) {
    return redis && limiterBackend === 'redis' ? redis.governor() : new InMemoryGovernor({ ...governorOptions(settings), ...clock });
  }
  if (settings.budget) {
    throw new SettingsError({
      key: `${settings.scope}__BUDGET__USD`,
      problem: 'a spend budget is kept by a backend\'s own governor: the limiter and the breaker must be built on one backend (PGW_LIMITER_BACKEND = PGW_BREAKER_BACKEND)',
    });
  }
  if (tenantsBounded(governorOptions(settings).tenants)) {
    throw new SettingsError({
      key: `${settings.scope}__TENANT__RPM`,
      problem: "a tenant's bound is kept by a backend's own governor, in the same store operation as the six gates: the limiter and the breaker must be built on one backend (PGW_LIMITER_BACKEND = PGW_BREAKER_BACKEND)",
    });
  }
  const limiter: Limiter =
    redis && limiterBackend === 'redis' ? redis.limiter() : closeWith(owned, new InMemoryLimiter({ ...limiterOptions(settings), ...clock }));
  const breaker: Breaker =
    redis && breakerBackend === 'redis' ? redis.breaker() : closeWith(owned, new InMemoryBreaker({ ...breakerOptions(settings), ...clock }));
  return governorOf(limiter, breaker);
}

const limiterOptions = (settings: GatewaySettings) => ({
  scope: settings.scope,
  sources: Object.fromEntries(settings.sources.map((s) => [s.name, { rpm: s.rpm, tpm: s.tpm, maxConcurrency: s.maxConcurrency }])),
  global: settings.global,
  leaseTtlMs: settings.leaseTtlMs,
});

/** The governor's options: the limiter's, the breaker policy, the tenants' policy, and the scope's budget when it has one. */
const governorOptions = (settings: GatewaySettings) => ({
  ...limiterOptions(settings),
  policy: settings.breaker,
  tenants: { bounds: settings.tenant, tenants: settings.tenants, batchShare: settings.batchShare },
  ...(settings.budget && { budget: settings.budget }),
});

/** A budget that cannot be kept is not silently ignored: every source of a budgeted scope needs a price. */
function assertBudgetPriced(settings: GatewaySettings, pricing: PricingTable): void {
  if (settings.budget === undefined) return;
  const unpriced = settings.sources.find((source) => source.price === undefined && findModelPrice(source.model, pricing) === undefined);
  if (unpriced === undefined) return;
  throw new SettingsError({
    key: `${settings.scope}__SOURCE__${unpriced.name.toUpperCase()}__PRICING`,
    problem: `source ${unpriced.name} (model ${unpriced.model}) has no price (neither PRICING, ${settings.scope}__PRICING_PATH nor the built-in table), so its spend budget cannot be kept`,
  });
}

const breakerOptions = (settings: GatewaySettings) => ({
  scope: settings.scope,
  sources: settings.sources.map((s) => s.name),
  policy: settings.breaker,
});

/**
 * One Redis connection per client for all its Redis components; each factory is called at most once.
 * The connection is registered first so it is closed after the components that use it.
 */
async function redisComponents(settings: GatewaySettings, neededFor: string, owned: OwnedResources) {
  const { pkg, redis } = await connectRedis(settings.backends, neededFor, owned);
  return {
    limiter: () => closeWith(owned, new pkg.RedisLimiter({ ...limiterOptions(settings), redis })),
    breaker: () => closeWith(owned, new pkg.RedisBreaker({ ...breakerOptions(settings), redis })),
    governor: () => closeWith(owned, new pkg.RedisGovernor({ ...governorOptions(settings), redis })),
    cache: () => closeWith(owned, new pkg.RedisCache({ redis, namespace: settings.cache.namespace })),
  };
}

/** The telemetry store. Both stores fail open from the start: a store that is down warns and counts dropped rows. */
async function createRecorder(
  settings: GatewaySettings,
  warn: ((message: string) => void) | undefined,
  owned: OwnedResources,
): Promise<TelemetryRecorder | undefined> {
  const { telemetry, sqlitePath, telemetryDsn } = settings.backends;
  const queue = warn ? { warn } : {};
  switch (telemetry) {
    case 'none':
      return undefined;
    case 'sqlite': {
      const { SqliteRecorder } = await loadOptional('@pgw/telemetry-sqlite', 'PGW_TELEMETRY_BACKEND=sqlite', () => import('@pgw/telemetry-sqlite'));
      // The schema fills the default path; a directory that cannot be made is reported by the recorder, naming the path.
      const path = sqlitePath!;
      await mkdir(dirname(path), { recursive: true }).catch(() => {});
      return closeWith(owned, await SqliteRecorder.open({ path, ...queue }));
    }
    case 'postgres': {
      const { PgRecorder } = await loadOptional('@pgw/telemetry-pg', 'PGW_TELEMETRY_BACKEND=postgres', () => import('@pgw/telemetry-pg'));
      // The schema requires PGW_TELEMETRY_DSN for postgres.
      return closeWith(owned, await PgRecorder.open({ dsn: telemetryDsn!, ...queue }));
    }
  }
}

/** OpenTelemetry on the globally registered tracer and meter providers, as instrumentation libraries do. */
async function otelSubscriber(): Promise<GatewaySubscriber> {
  const { otelSubscriber } = await loadOptional('@pgw/telemetry-otel', 'PGW_OTEL=on', () => import('@pgw/telemetry-otel'));
  return otelSubscriber();
}

/** Built-in prices with the `PRICING_PATH` file merged over them. */
async function loadPricing(settings: GatewaySettings): Promise<PricingTable> {
  if (settings.pricingPath === undefined) return DEFAULT_PRICING;
  const key = `${settings.scope}__PRICING_PATH`;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(settings.pricingPath, 'utf8'));
  } catch (error) {
    const why = error instanceof SyntaxError ? 'is not valid JSON' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new SettingsError({ key, problem: `${settings.pricingPath} ${why}`, cause: error });
  }
  try {
    return Object.freeze({ ...DEFAULT_PRICING, ...parsePricingTable(json, settings.pricingPath) });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new SettingsError({ key, problem: error.message, cause: error });
  }
}
