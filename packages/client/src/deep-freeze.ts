import { isModel } from '@pgw/core/internal';

/**
 * Freezes a value and everything reachable from it (values handed out must not be mutated later),
 * except models: a model instance in a source belongs to its factory or its author.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !isModel(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
