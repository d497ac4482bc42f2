/**
 * The environment a command reads its keys from, as the client's `fromEnv` sees it: the process
 * env over an env file (`--env-file`, else `./.env` when present). Blank values count as unset.
 */
import { existsSync } from 'node:fs';
import { readEnvFile } from '@pgw/client';

export function effectiveEnv(envFile?: string): Map<string, string> {
  const file = envFile !== undefined ? readEnvFile(envFile) : existsSync('.env') ? readEnvFile('.env') : {};
  const merged = new Map<string, string>();
  for (const layer of [file, process.env]) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (value.trim() === '') merged.delete(key);
      else merged.set(key, value.trim());
    }
  }
  return merged;
}
