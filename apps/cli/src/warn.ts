import { defuseControls } from './defuse-controls.js';

/** Where the clients' non-fatal warnings (unknown keys, telemetry trouble) go: stderr, marked as ours. */
export function warnOnStderr(message: string): void {
  process.stderr.write(`pgw: warning: ${defuseControls(message)}\n`);
}
