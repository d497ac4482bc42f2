import type { Source } from '@pgw/core';
import type { SourceWalk } from './internals.js';

/** The whole order a walk gives. */
export function drain(walk: SourceWalk): Source[] {
  const order: Source[] = [];
  for (let source = walk.next(); source !== undefined; source = walk.next()) order.push(source);
  return order;
}

/** Lets a background stats read (already-resolved promises) finish: one macrotask turn, no clock involved. */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
