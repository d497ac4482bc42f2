/**
 * What `pgw` prints on stderr when a command fails: the error's class and message, plus the retry
 * hint and the last attempt's error when the gateway gives them.
 */
import { GatewayUnavailableError, SettingsError } from '@pgw/client';
import { defuseControls } from './defuse-controls.js';
import { AdminApiError } from './keys/admin-api-error.js';
import { UsageError } from './usage-error.js';

export function failureMessage(error: unknown): string {
  if (error instanceof SettingsError) return `pgw: configuration error: ${defuseControls(error.message)}`;
  if (error instanceof UsageError) return `pgw: ${defuseControls(error.message)} (see pgw help)`;
  if (!(error instanceof Error)) return `pgw: ${defuseControls(String(error))}`;
  const lines = [`pgw: ${error.name}: ${defuseControls(error.message)}`];
  if (error instanceof GatewayUnavailableError) {
    lines.push(`  retry after ${error.retryAfterMs} ms`);
  }
  if (error instanceof AdminApiError && error.retryAfterS !== undefined) lines.push(`  retry after ${error.retryAfterS} s`);
  if (error.cause instanceof Error) lines.push(`  last error: ${error.cause.name}: ${defuseControls(error.cause.message)}`);
  return lines.join('\n');
}
