/**
 * `pgw keys create|list|show|update|rotate|revoke`: the admin API of `pgw serve` (`/admin/keys`)
 * from the terminal. A new key (create, rotate) goes to stdout alone, once, with a line on stderr
 * saying it will not be shown again; `--json` prints the API's answer as it came.
 */
import { EXIT, type ExitCode } from '../exit-codes.js';
import { adminApi, type ConnectionFlags } from '../keys/admin-connection.js';
import { createBody, updateBody, type CreateFlags, type UpdateFlags } from '../keys/key-flags.js';
import { keyBlock, keysTable } from '../keys/key-output.js';
import type { IssuedKey, KeyList, KeyRecord } from '../keys/key-record.js';
import { defuseControls } from '../defuse-controls.js';

interface OutputFlags extends ConnectionFlags {
  json?: boolean;
}

const keyPath = (id: string) => `/admin/keys/${encodeURIComponent(id)}`;

export async function runKeysCreate(flags: CreateFlags & OutputFlags, signal: AbortSignal): Promise<ExitCode> {
  const body = createBody(flags);
  const issued = await adminApi(flags, signal).request<IssuedKey>('POST', '/admin/keys', body);
  printIssued(issued, flags, `created ${issued.id} for tenant ${issued.tenant}`);
  return EXIT.ok;
}

export async function runKeysList(flags: OutputFlags & { tenant?: string; state?: string }, signal: AbortSignal): Promise<ExitCode> {
  const query = new URLSearchParams({ ...(flags.tenant !== undefined && { tenant: flags.tenant }), ...(flags.state !== undefined && { state: flags.state }) });
  const list = await adminApi(flags, signal).request<KeyList>('GET', `/admin/keys${query.size > 0 ? `?${query}` : ''}`);
  print(flags.json ? list : keysTable(list.data));
  return EXIT.ok;
}

export async function runKeysShow(id: string, flags: OutputFlags, signal: AbortSignal): Promise<ExitCode> {
  print(shown(await adminApi(flags, signal).request<KeyRecord>('GET', keyPath(id)), flags));
  return EXIT.ok;
}

export async function runKeysUpdate(id: string, flags: UpdateFlags & OutputFlags, signal: AbortSignal): Promise<ExitCode> {
  const body = updateBody(flags);
  print(shown(await adminApi(flags, signal).request<KeyRecord>('PATCH', keyPath(id), body), flags));
  return EXIT.ok;
}

export async function runKeysRotate(id: string, flags: OutputFlags & { graceS?: number }, signal: AbortSignal): Promise<ExitCode> {
  const body = flags.graceS === undefined ? {} : { graceS: flags.graceS };
  const issued = await adminApi(flags, signal).request<IssuedKey>('POST', `${keyPath(id)}/rotate`, body);
  const until = issued.previousKeyExpiresAt === undefined ? '' : `; the previous key works until ${issued.previousKeyExpiresAt}`;
  printIssued(issued, flags, `rotated ${issued.id}${until}`);
  return EXIT.ok;
}

export async function runKeysRevoke(id: string, flags: OutputFlags, signal: AbortSignal): Promise<ExitCode> {
  const record = await adminApi(flags, signal).request<KeyRecord>('DELETE', keyPath(id));
  if (flags.json) print(record);
  else process.stderr.write(`pgw: revoked ${defuseControls(record.id)} (state ${defuseControls(record.state)}): its keys are refused from now on\n`);
  return EXIT.ok;
}

const shown = (record: KeyRecord, flags: OutputFlags) => (flags.json ? record : keyBlock(record));

function print(value: unknown): void {
  process.stdout.write(typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}

/** The key alone on stdout (so `$(pgw keys create …)` is the key), what happened on stderr. */
function printIssued(issued: IssuedKey, flags: OutputFlags, what: string): void {
  print(flags.json ? issued : `${issued.key}\n`);
  process.stderr.write(`pgw: ${defuseControls(what)} (prefix ${defuseControls(issued.prefix)}): the key above is shown this once and will not be shown again\n`);
}
