/** Argument checks shared by adapters (memory and Redis backends): bad input is a RangeError naming the argument. Each returns the value it checked. */

/** Token counts and limits (0 = unlimited for limits). */
export function assertNonNegativeInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

export function assertPositiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be an integer >= 1, got ${String(value)}`);
  }
  return value;
}

export function assertPositiveMs(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite number of milliseconds > 0, got ${String(value)}`);
  }
  return value;
}

/** An optional duration: `fallback` when absent, else checked like `assertPositiveMs`. */
export function optionalPositiveMs(value: number | undefined, name: string, fallback: number): number {
  return value === undefined ? fallback : assertPositiveMs(value, name);
}
