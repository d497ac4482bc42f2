/** The `pgw keys` command tree: its subcommands and flags (the runners are in commands/keys.ts). */
import { Option, type Command } from 'commander';
import type { ExitCode } from '../exit-codes.js';
import { nonNegativeInteger, parseExpiry, positiveUsd } from '../flag-values.js';
import { KEY_BUDGET_WINDOWS, KEY_STATES, PRIORITIES } from '@pgw/core';

/** A repeatable flag's values, in the order given. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Adds `keys` to `program` (through `command`, so it inherits the program's exit and error settings). */
export function registerKeys(program: Command, signal: AbortSignal, done: (code: ExitCode) => void): void {
  const keys = program.command('keys').description('create, list, show, update, rotate and revoke the API keys of a pgw serve (its /admin/keys API)');
  // The HTTP client loads only for these commands.
  const runners = () => import('../commands/keys.js');
  const connection = (command: Command) =>
    command
      .option('--url <url>', 'the server (default PGW_URL, else http://127.0.0.1:8787)')
      .option('--admin-key-file <path>', 'read the admin key from this file (default: the PGW_ADMIN_KEY env key)')
      .option('--env-file <path>', 'read PGW_URL and PGW_ADMIN_KEY from this env file beneath the process env (default ./.env if present)')
      .option('--json', "print the API's JSON answer");
  const fields = (command: Command) =>
    command
      .option('--name <name>', 'a name to recognise the key by')
      .option('--model <id>', 'a model the key may call (repeat the flag for more; default all)', collect)
      .option('--mcp <server>', 'an MCP server the key may use (repeat the flag for more; default all)', collect)
      .addOption(new Option('--priority <class>', 'the priority class of its calls').choices(PRIORITIES))
      .addOption(new Option('--rpm <n>', 'requests per minute at most (0 = no bound)').argParser(nonNegativeInteger))
      .addOption(new Option('--tpm <n>', 'tokens per minute at most (0 = no bound)').argParser(nonNegativeInteger))
      .addOption(new Option('--max-concurrency <n>', 'calls in flight at most (0 = no bound)').argParser(nonNegativeInteger))
      .addOption(new Option('--budget-usd <usd>', 'its spend budget per --budget-window').argParser(positiveUsd))
      .addOption(new Option('--budget-window <window>', 'the budget window').choices(KEY_BUDGET_WINDOWS))
      .addOption(new Option('--expires-at <time>', 'when the key stops working: an ISO date/time (UTC unless zoned) or a duration from now (30d)').argParser((t) => parseExpiry(t)));

  connection(fields(keys.command('create').description('create a key; prints it once (stdout)')))
    .requiredOption('--tenant <id>', 'the tenant its calls are made for')
    .action(async (flags) => done(await (await runners()).runKeysCreate(flags, signal)));
  connection(keys.command('list').description('list the keys (never a key itself)'))
    .option('--tenant <id>', "only this tenant's keys")
    .addOption(new Option('--state <state>', 'only keys in this state').choices(KEY_STATES))
    .action(async (flags) => done(await (await runners()).runKeysList(flags, signal)));
  connection(keys.command('show').description("a key's record and its use against its bounds").argument('<id>', 'the key id (key_…)'))
    .action(async (id: string, flags) => done(await (await runners()).runKeysShow(id, flags, signal)));
  connection(fields(keys.command('update').description("change a key's name, models, limits, budget or expiry").argument('<id>', 'the key id (key_…)')))
    .option('--no-expiry', 'the key no longer expires')
    .option('--no-budget', 'remove its budget')
    .option('--all-models', 'let it call every model')
    .action(async (id: string, flags) => done(await (await runners()).runKeysUpdate(id, flags, signal)));
  connection(keys.command('rotate').description('issue a new key for the same id; the old one works for the grace period. Prints the new key once').argument('<id>', 'the key id (key_…)'))
    .addOption(new Option('--grace-s <seconds>', 'how long the old key keeps working (default the server\'s, 24 h; 0 = none)').argParser(nonNegativeInteger))
    .action(async (id: string, flags) => done(await (await runners()).runKeysRotate(id, flags, signal)));
  connection(keys.command('revoke').description('revoke a key: every server refuses it from now on').argument('<id>', 'the key id (key_…)'))
    .action(async (id: string, flags) => done(await (await runners()).runKeysRevoke(id, flags, signal)));
}
