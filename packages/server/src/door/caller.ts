/**
 * Who a request is served as: its key's tenant, models and priority — which `x-pgw-priority` may
 * lower and never raise, so a batch key cannot buy its way into the interactive class.
 */
import { PRIORITIES, type KeyBounds, type Priority } from '@pgw/core';
import type { KeyPolicy } from './api-keys.js';
import { InvalidRequestFieldError } from '@pgw/wire';

export const PRIORITY_HEADER = 'x-pgw-priority';

export interface RequestCaller {
  /** Undefined without keys: the one tenant `""`. */
  readonly tenantId?: string;
  readonly priority: Priority;
  /** Undefined = every model the server serves. */
  readonly models?: ReadonlySet<string>;
  /** A stored key's bounds, booked by the governor beside the tenant's. */
  readonly key?: KeyBounds;
  /** The MCP servers and tools it may use; undefined = all (a server without keys), a key without a list gets none. */
  readonly mcp?: ReadonlySet<string>;
}

const OPEN: RequestCaller = Object.freeze({ priority: 'interactive' });
/** A key that names no MCP server or tool uses none (deny by default). */
const NO_MCP: ReadonlySet<string> = new Set();

/** The caller of a request presenting `policy` (undefined: a server without keys) and `header`. */
export function callerOf(policy: KeyPolicy | undefined, header: string | string[] | undefined): RequestCaller {
  const base: RequestCaller =
    policy === undefined
      ? OPEN
      : { tenantId: policy.tenantId, priority: policy.priority, ...(policy.models && { models: policy.models }), mcp: policy.mcp ?? NO_MCP, ...(policy.key && { key: policy.key }) };
  if (header === undefined) return base;
  const asked = PRIORITIES.indexOf(header as Priority);
  if (typeof header !== 'string' || asked < 0) throw new InvalidRequestFieldError(PRIORITY_HEADER, `must be one of ${PRIORITIES.join(', ')}, sent once`);
  return { ...base, priority: PRIORITIES[Math.max(asked, PRIORITIES.indexOf(base.priority))]! };
}

/** Whether the caller may call `model` (one outside its key's list is answered as if it did not exist). */
export const mayCall = (caller: RequestCaller, model: string): boolean => caller.models === undefined || caller.models.has(model);
