/**
 * Where `pgw keys` sends its requests and with which admin key: `--url`, else `PGW_URL`, else pgw
 * serve's default address; the key from `--admin-key-file` (its first line), else `PGW_ADMIN_KEY`
 * (the process env over the env file). Never a flag of its own: a key on the command line is seen
 * by every user of the machine and kept in shell histories.
 */
import { readFileSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import { effectiveEnv } from '../effective-env.js';
import { UsageError } from '../usage-error.js';
import { AdminApi } from './admin-api.js';

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export interface ConnectionFlags {
  url?: string;
  adminKeyFile?: string;
  envFile?: string;
}

export function adminApi(flags: ConnectionFlags, signal: AbortSignal): AdminApi {
  const env = effectiveEnv(flags.envFile);
  const url = flags.url ?? env.get('PGW_URL') ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
    if (flags.url !== undefined) throw new UsageError('--url', 'expected an http(s) URL such as http://127.0.0.1:8787');
    throw new SettingsError({ key: 'PGW_URL', value: url, problem: 'expected an http(s) URL such as http://127.0.0.1:8787' });
  }
  return new AdminApi({ url, adminKey: adminKey(flags, env), signal });
}

function adminKey(flags: ConnectionFlags, env: ReadonlyMap<string, string>): string {
  if (flags.adminKeyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.adminKeyFile, 'utf8');
    } catch (error) {
      throw new UsageError('--admin-key-file', `cannot read ${flags.adminKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const key = text.split(/\r?\n/, 1)[0]!.trim();
    if (key === '') throw new UsageError('--admin-key-file', `${flags.adminKeyFile} holds no key on its first line`);
    return key;
  }
  const key = env.get('PGW_ADMIN_KEY');
  if (key === undefined) {
    throw new SettingsError({ key: 'PGW_ADMIN_KEY', problem: 'is not set: give an admin key of the server (PGW_SERVER__ADMIN_KEYS) here or in --admin-key-file' });
  }
  return key;
}
