import { createHook } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resource types that keep a process alive: timers and TCP sockets/servers. */
const TRACKED = new Set(['Timeout', 'Immediate', 'TCPWRAP', 'TCPSERVERWRAP', 'TCPCONNECTWRAP']);

export interface HandleProbe {
  /**
   * Stops watching new resources, waits up to `timeoutMs` for the watched ones to close, and returns
   * the types of those still open (empty = nothing leaked). Ends the probe.
   */
  leftovers(timeoutMs?: number): Promise<string[]>;
}

/**
 * Watches timers and sockets created from now on, for tests that must prove they leave nothing open.
 * Unlike `process.getActiveResourcesInfo()` counts, it ignores what existed before (the test runner's own)
 * and the timers of its own polling.
 */
export function probeHandles(): HandleProbe {
  const alive = new Map<number, string>();
  let watching = true;
  const hook = createHook({
    init(asyncId, type) {
      if (watching && TRACKED.has(type)) alive.set(asyncId, type);
    },
    destroy(asyncId) {
      alive.delete(asyncId);
    },
  });
  hook.enable();
  return {
    async leftovers(timeoutMs = 2000) {
      watching = false;
      const deadline = Date.now() + timeoutMs;
      while (alive.size > 0 && Date.now() < deadline) await sleep(20);
      hook.disable();
      return [...alive.values()];
    },
  };
}
