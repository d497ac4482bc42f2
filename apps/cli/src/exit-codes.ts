/**
 * The exit codes of `pgw` (documented in the README) and the one place that maps an error to its
 * code. Classification is by error class, never by message text.
 */
import { MissingPackageError, SettingsError, SourceNotConfiguredError } from '@pgw/client';
import { CommanderError } from 'commander';
import { AdminApiError } from './keys/admin-api-error.js';
import { UsageError } from './usage-error.js';

export const EXIT = {
  ok: 0,
  /** The call failed (gateway unavailable, request rejected, result invalid, deadline exceeded) or another runtime error. */
  callFailed: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** A configuration key is missing or malformed; the message names the key. */
  config: 3,
  /** `pgw check`: at least one source is unhealthy. */
  unhealthy: 4,
  /** `pgw batch`: the job paused (out of its budget); resumable. */
  paused: 5,
  /** SIGINT: the in-flight call was aborted. */
  interrupted: 130,
  /** `pgw serve`: a second SIGTERM during the drain ended the process at once. */
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Commander's own "exit" for `--help` and `--version`: not a failure. */
const COMMANDER_SUCCESS = new Set(['commander.helpDisplayed', 'commander.version']);

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CommanderError) return COMMANDER_SUCCESS.has(error.code) ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) return EXIT.usage;
  // A source the governance backend does not know is an assembly defect, and a backend package
  // that is not installed was asked for by a key: both are configuration.
  if (error instanceof SettingsError || error instanceof SourceNotConfiguredError || error instanceof MissingPackageError) {
    return EXIT.config;
  }
  if (error instanceof AdminApiError) return adminApiExit(error.status);
  // The gateway's call failures (unavailable, rejected, invalid, deadline) and any other runtime error.
  return EXIT.callFailed;
}

/**
 * The admin API's refusals as the CLI's other outcomes: a field it refused (400, 422) is a flag the
 * user got wrong; an admin key it does not take (401, 403) is configuration; anything else (no
 * such key, throttled, server error, unreachable) is a failed call.
 */
function adminApiExit(status: number): ExitCode {
  if (status === 400 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.config;
  return EXIT.callFailed;
}
