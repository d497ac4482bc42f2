/**
 * Request bodies are checked by zod schemas before anything else reads them: the first issue is an
 * InvalidRequestFieldError whose `param` is the field's path in the protocol's body (`messages[2].role`).
 * The message rules are the client's own (roles, content parts, name), so every argument the client
 * would refuse is refused here, as a 400 naming the field.
 */
import { EFFORTS } from '@pgw/core';
import { z } from 'zod';
import { InvalidRequestFieldError } from './request-field-error.js';

/** An identifier that lands in telemetry (`user`): as bounded as the client's ids. */
const MAX_ID_LENGTH = 256;

export const nullish = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

export const userField = nullish(z.string().max(MAX_ID_LENGTH));

export const effortField = nullish(z.string().refine((value) => (EFFORTS as readonly string[]).includes(value.trim().toLowerCase()), { message: `must be one of ${EFFORTS.join(', ')}` }));

const contentPart = z.looseObject({ type: z.string() });
export const chatMessage = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    // An assistant turn of tool calls may leave its content out, which the client reads as null.
    content: z.union([z.string(), z.array(contentPart), z.null()]).optional().transform((content) => content ?? null),
    name: z.string().optional(),
  })
  // `developer` is the newer name of the system role: the upstream speaks the older one, as the Responses route does.
  .transform((message) => (message.role === 'developer' ? { ...message, role: 'system' as const } : message));

export const jsonObject = z.record(z.string(), z.unknown());

/** Runs `schema` on a request body (or the part of it at `at`); the first issue becomes an InvalidRequestFieldError naming its path. */
export function parseRequest<T extends z.ZodType>(schema: T, body: unknown, at = ''): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const { issue, path } = narrowed(result.error.issues[0]!, []);
  throw new InvalidRequestFieldError(fieldPath(path, at), problemOf(issue));
}

/**
 * A union that refused a value reports "Invalid input" at the union; the problem is usually inside
 * the one alternative that matched the value's shape (an array, a block of a known `type`). Descends
 * into it while exactly one alternative got past that first check, so the field named is the one at fault.
 */
function narrowed(issue: z.core.$ZodIssue, base: readonly PropertyKey[]): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union') return { issue, path };
  const matched = issue.errors.filter((issues) => issues.length > 0 && !refusedAtOnce(issues[0]!));
  return matched.length === 1 ? narrowed(matched[0]![0]!, path) : { issue, path };
}

/** An alternative that failed on the value itself (its type) or on its `type` tag never matched it. */
const refusedAtOnce = (issue: z.core.$ZodIssue): boolean =>
  (issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) || (issue.path.length === 1 && issue.path[0] === 'type' && issue.code === 'invalid_value');

function fieldPath(path: readonly PropertyKey[], at: string): string {
  if (path.length === 0) return at === '' ? 'body' : at;
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? String(part) : `${text}.${String(part)}`), at);
}

function problemOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array' ? `must have at least ${String(issue.minimum)} item(s)` : issue.origin === 'string' ? 'must not be empty' : `must be ≥ ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string' ? `must be at most ${String(issue.maximum)} characters` : issue.origin === 'array' ? `must have at most ${String(issue.maximum)} item(s)` : `must be ≤ ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

const article = (expected: string) => (expected === 'object' || expected === 'array' ? `an ${expected === 'object' ? 'object' : 'array'}` : `a ${expected}`);
