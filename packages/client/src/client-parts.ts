/** What the three clients' constructors share: seams with real defaults, and a completeness check. */
import { sleep as realSleep } from '@pgw/core';
import type { Clock, Sleep } from '@pgw/core';
import { isPlainObject } from './call-input.js';

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
