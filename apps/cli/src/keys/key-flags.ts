/**
 * The `pgw keys` flags and the admin API's body fields they set, both ways: a create or update body
 * from the flags, and the flag behind a field an API error names (`limits.rpm` → `--rpm`).
 */
import { UsageError } from '../usage-error.js';

export interface KeyFieldFlags {
  name?: string;
  model?: string[];
  mcp?: string[];
  priority?: string;
  rpm?: number;
  tpm?: number;
  maxConcurrency?: number;
  budgetUsd?: number;
  budgetWindow?: string;
  /** ISO 8601 instant. */
  expiresAt?: string;
}

export interface CreateFlags extends KeyFieldFlags {
  tenant: string;
}

/** `update`: `--no-expiry`, `--no-budget` and `--all-models` clear what the key had. */
export interface UpdateFlags extends KeyFieldFlags {
  expiry?: boolean;
  budget?: boolean;
  allModels?: boolean;
}

/** Body field (its first path segment or the whole path) → the flag that sets it. */
const FLAG_OF_PARAM: Readonly<Record<string, string>> = {
  tenant: '--tenant',
  name: '--name',
  models: '--model',
  mcp: '--mcp',
  priority: '--priority',
  'limits.rpm': '--rpm',
  'limits.tpm': '--tpm',
  'limits.maxConcurrency': '--max-concurrency',
  'budget.usd': '--budget-usd',
  'budget.window': '--budget-window',
  budget: '--budget-usd',
  expiresAt: '--expires-at',
  graceS: '--grace-s',
};

/** The flag that sets the body field `param` names (`models[2]` → `--model`), if one does. */
export function flagOfParam(param: string): string | undefined {
  const path = param.replace(/\[\d+\]/g, '');
  return FLAG_OF_PARAM[path] ?? FLAG_OF_PARAM[path.split('.')[0]!];
}

/** The `POST /admin/keys` body: only the fields a flag gave. */
export function createBody(flags: CreateFlags): Record<string, unknown> {
  return { tenant: flags.tenant, ...fieldsOf(flags) };
}

/** The `PATCH /admin/keys/{id}` body: the fields a flag changes, `null` for those cleared. */
export function updateBody(flags: UpdateFlags): Record<string, unknown> {
  if (flags.expiry === false && flags.expiresAt !== undefined) throw new UsageError('--no-expiry', 'cannot be given with --expires-at');
  if (flags.budget === false && (flags.budgetUsd !== undefined || flags.budgetWindow !== undefined)) {
    throw new UsageError('--no-budget', 'cannot be given with --budget-usd or --budget-window');
  }
  if (flags.allModels && flags.model !== undefined) throw new UsageError('--all-models', 'cannot be given with --model');
  const body = {
    ...fieldsOf(flags),
    ...(flags.expiry === false && { expiresAt: null }),
    ...(flags.budget === false && { budget: null }),
    ...(flags.allModels && { models: null }),
  };
  if (Object.keys(body).length === 0) throw new UsageError('update', 'nothing to change: give at least one flag (pgw help keys update)');
  return body;
}

function fieldsOf(flags: KeyFieldFlags): Record<string, unknown> {
  const limits = {
    ...(flags.rpm !== undefined && { rpm: flags.rpm }),
    ...(flags.tpm !== undefined && { tpm: flags.tpm }),
    ...(flags.maxConcurrency !== undefined && { maxConcurrency: flags.maxConcurrency }),
  };
  if ((flags.budgetUsd === undefined) !== (flags.budgetWindow === undefined)) {
    throw new UsageError(flags.budgetUsd === undefined ? '--budget-usd' : '--budget-window', 'a budget needs both --budget-usd and --budget-window');
  }
  return {
    ...(flags.name !== undefined && { name: flags.name }),
    ...(flags.model !== undefined && { models: flags.model }),
    ...(flags.mcp !== undefined && { mcp: flags.mcp }),
    ...(flags.priority !== undefined && { priority: flags.priority }),
    ...(Object.keys(limits).length > 0 && { limits }),
    ...(flags.budgetUsd !== undefined && { budget: { usd: flags.budgetUsd, window: flags.budgetWindow } }),
    ...(flags.expiresAt !== undefined && { expiresAt: flags.expiresAt }),
  };
}
