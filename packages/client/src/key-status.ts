import { assertKeyBounds, type Governor, type KeyStatus } from '@pgw/core';

/**
 * What `client.keyStatus(bounds)` answers: a stored key's use of the scope and its budget's spend in
 * the current window, read from the governor that keeps its books (the admin API and the console
 * show it against the bounds).
 */
export async function readKeyStatus(governor: Governor, bounds: unknown, client: string): Promise<KeyStatus> {
  assertKeyBounds(bounds, `${client}.keyStatus(bounds)`);
  if (governor.keyStatus === undefined) throw new TypeError(`${client}.keyStatus: this governor keeps no key books`);
  return governor.keyStatus(bounds);
}
