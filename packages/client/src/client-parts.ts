/** What the three clients' constructors share: seams with real defaults, and a completeness check. */
import { sleep as realSleep } from '@pgw/core/internal';
import type { Clock, GatewaySubscriber, Governor, PricingTable, Sleep, TelemetryRecorder } from '@pgw/core';
import { isPlainObject } from './call-input.js';

/** What every client accepts besides its settings and governance components. Injected parts are never closed by the client. */
export interface ClientSeams {
  recorder?: TelemetryRecorder;
  /** Replaces the table built from the built-in prices and `PRICING_PATH`. */
  pricing?: PricingTable;
  /** Clock of the governance logic (limiter windows, breaker cooldowns, latency stats). Default `Date.now`. */
  now?: Clock;
  sleep?: Sleep;
  rng?: () => number;
  /** Where non-fatal warnings go. Default `console.warn`. */
  warn?: (message: string) => void;
  /** Replaces `settings.callDeadlineMs` for every call of this client. */
  callDeadlineMs?: number;
  /** Listeners of the client's events (call, attempt, retry, breaker, quota wait, cache, first token); see README "Events". */
  subscribers?: readonly GatewaySubscriber[];
}

/** Full injection of one client: its settings (every source with its model), the governance components, plus the seams. */
export interface ClientParts<Settings> extends ClientSeams {
  settings: Settings;
  /** The scope's breakers and six gates (`InMemoryGovernor`, `RedisGovernor`, or `governorOf(limiter, breaker)`). */
  governor: Governor;
}

/** Injected seams, defaulted: real time, real sleep, Math.random, console.warn. */
export function seams(parts: { now?: Clock; sleep?: Sleep; rng?: () => number; warn?: (message: string) => void }) {
  return {
    now: parts.now ?? Date.now,
    sleep: parts.sleep ?? realSleep,
    rng: parts.rng ?? Math.random,
    warn: parts.warn ?? ((message: string) => console.warn(message)),
  };
}

/** Full injection must be complete: a missing component is named, not discovered at the first call. */
export function requireParts(parts: object, client: string, names: readonly string[]): void {
  if (!isPlainObject(parts)) throw new TypeError(`${client}(parts) must be an object`);
  for (const name of names) {
    if (parts[name] === undefined || parts[name] === null) throw new TypeError(`${client}(parts.${name}) is required`);
  }
}
