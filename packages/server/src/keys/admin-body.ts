/**
 * The admin API's bodies and queries, each field hostile input: strict objects (an unknown field is
 * refused by name), bounded strings, lists and numbers, and every refusal an InvalidRequestFieldError
 * naming the field (`limits.rpm`) — never echoing a value.
 */
import { KEY_BUDGET_WINDOWS, KEY_STATES, PRIORITIES } from '@pgw/core';
import { InvalidRequestFieldError } from '@pgw/wire';
import { z } from 'zod';
import { MAX_MODELS_PER_KEY } from '../door/api-keys.js';

const MAX_TEXT = 256;
const MAX_MCP_SERVERS = 100;
/** Far above any real bound, below what a 53-bit number or a Redis counter mishandles. */
const MAX_LIMIT = 1_000_000_000;
const MAX_BUDGET_USD = 1_000_000_000;
export const MAX_GRACE_S = 30 * 24 * 3600;
export const DEFAULT_GRACE_S = 24 * 3600;
/** Time is ISO 8601 with a zone (`Z` or an offset), as `Date` reads it unambiguously. */
const ISO = z.iso.datetime({ offset: true }).max(64);

const text = z.string().min(1).max(MAX_TEXT);
const names = (max: number) => z.array(text).min(1).max(max);
const limit = z.int().min(0).max(MAX_LIMIT);
const limits = z.strictObject({ rpm: limit.optional(), tpm: limit.optional(), maxConcurrency: limit.optional() });
const budget = z.strictObject({ usd: z.number().positive().max(MAX_BUDGET_USD), window: z.enum(KEY_BUDGET_WINDOWS) });

const createBody = z.strictObject({
  tenant: text,
  name: z.string().max(MAX_TEXT).optional(),
  models: names(MAX_MODELS_PER_KEY).optional(),
  mcp: names(MAX_MCP_SERVERS).optional(),
  priority: z.enum(PRIORITIES).optional(),
  limits: limits.optional(),
  budget: budget.optional(),
  expiresAt: ISO.optional(),
});

const patchBody = z.strictObject({
  name: z.string().max(MAX_TEXT).optional(),
  models: names(MAX_MODELS_PER_KEY).nullable().optional(),
  mcp: names(MAX_MCP_SERVERS).nullable().optional(),
  priority: z.enum(PRIORITIES).optional(),
  limits: limits.optional(),
  budget: budget.nullable().optional(),
  expiresAt: ISO.nullable().optional(),
});

const rotateBody = z.strictObject({ graceS: z.int().min(0).max(MAX_GRACE_S).optional() });
const listQuery = z.strictObject({ tenant: text.optional(), state: z.enum(KEY_STATES).optional() });
const auditQuery = z.strictObject({ keyId: text.optional() });

export type CreateBody = z.infer<typeof createBody>;
export type PatchBody = z.infer<typeof patchBody>;

/** Reads `value` with `schema`, or throws naming the first offending field (`where` for the whole value). */
function read<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const param = path.length === 0 ? where : path.map(String).join('.');
  const problem = issue.code === 'unrecognized_keys' ? 'is not a field of this request' : issue.message;
  throw new InvalidRequestFieldError(param, problem);
}

export const readCreateBody = (body: unknown) => read(createBody, body, 'body');
export const readPatchBody = (body: unknown) => read(patchBody, body, 'body');
export const readRotateBody = (body: unknown) => read(rotateBody, body, 'body');
export const readListQuery = (query: unknown) => read(listQuery, query, 'query');
export const readAuditQuery = (query: unknown) => read(auditQuery, query, 'query');

/** An expiry as epoch ms, refused unless after `now`. */
export function futureTime(iso: string, now: number): number {
  const at = Date.parse(iso);
  if (!(at > now)) throw new InvalidRequestFieldError('expiresAt', 'must be in the future');
  return at;
}
