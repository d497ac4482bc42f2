import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';

/** A scope / key-space name no other test (or parallel test file on a shared Redis) uses. */
export function uniqueScope(kind: string): string {
  return `contract-${kind}-${randomUUID()}`;
}

/**
 * Registers an afterEach that closes everything `track` was given during the test.
 * Call inside a describe block.
 */
export function closeAfterEach(): <T extends { close?(): Promise<void> }>(resource: T) => T {
  const open: Array<{ close?(): Promise<void> }> = [];
  afterEach(async () => {
    for (const resource of open.splice(0)) await resource.close?.();
  });
  return (resource) => {
    open.push(resource);
    return resource;
  };
}
