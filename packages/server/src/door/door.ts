/**
 * The guard every request passes before anything of its body is read (Fastify's `onRequest`, which
 * runs after routing): its request id, its access-log line, then — answered at once, the body
 * discarded unparsed (refused-body.ts) — an unrouted request (404), a host that is not loopback on a
 * server without keys (403), a protected route while draining (503), without a known key (401) or
 * with a malformed `x-pgw-priority` (400). A served request carries its caller (tenant, priority,
 * models, a stored key's bounds) from here. A static key is checked first; a key kept as data
 * (keys/stored-keys.ts) is read from its cache, and only a miss waits for the store. The key is checked on the route the router matched, so no spelling of the path (percent-encoding,
 * absolute form) gets around it.
 */
import { randomUUID } from 'node:crypto';
import type { MaybePromise } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessLog } from '../operations/access-log.js';
import { presentedKey, type ApiKeys, type KeyPolicy } from './api-keys.js';
import type { StoredKeys } from '../keys/stored-keys.js';
import { replyFailure } from './failure-reply.js';
import { failureAnswer, type FailureAnswer } from './http-errors.js';
import { HostNotAllowedError, ServerDrainingError, UnauthorizedError } from './request-error.js';
import { callerOf, PRIORITY_HEADER } from './caller.js';
import { discardBody, hasBody } from './refused-body.js';
import type { RouteConfig } from '../routes/governed.js';

export interface DoorParts {
  keys: ApiKeys;
  /** The keys kept as data, read beside the static ones; undefined without a key store. */
  stored?: StoredKeys;
  log: AccessLog;
  draining: () => boolean;
  /** Whether a server without keys serves any `Host` (it was opened on purpose with `allowUnauthenticated`). */
  openToAnyHost: () => boolean;
  /** Called for every request: the drain watches for a quiet line. */
  onArrival: () => void;
}

/** `x-request-id` as sent when it is ≤ 128 visible ASCII characters, else a new one. */
const WELL_FORMED_ID = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && WELL_FORMED_ID.test(sent) ? sent : `req_${randomUUID().replaceAll('-', '')}`;
}

export function guardTheDoor(app: FastifyInstance, parts: DoorParts): void {
  // Callback style: an async hook would cost every request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    parts.onArrival();
    parts.log.watch(request, reply);
    const answer = (refusal: FailureAnswer | undefined) => {
      // The class the call is served in, so a caller whose header was overruled by its key can tell.
      if (request.caller !== undefined) reply.raw.setHeader(PRIORITY_HEADER, request.caller.priority);
      if (refusal === undefined) return done();
      // A refused body is discarded as it comes; a draining server, going away, closes after its answer.
      if (hasBody(request.raw) && (parts.draining() || !discardBody(request.raw))) reply.header('connection', 'close');
      replyFailure(request, reply, refusal);
    };
    const refusal = refusalOf(request, parts);
    // Only a stored key the cache does not hold waits for the store.
    if (isPromise(refusal)) refusal.then(answer, (error: unknown) => answer(failureAnswer(error)));
    else answer(refusal);
  });
}

/** Whether requests need a key: static keys are configured, or a key store is. */
export const hasKeys = (parts: Pick<DoorParts, 'keys' | 'stored'>): boolean => parts.keys.size > 0 || parts.stored !== undefined;

/** Why the request is answered at once, or undefined to serve it (with its `caller`); a promise while a stored key is read. */
function refusalOf(request: FastifyRequest, parts: DoorParts): MaybePromise<FailureAnswer | undefined> {
  if (request.is404) return notFound(request);
  const keyed = hasKeys(parts);
  if (!keyed && !parts.openToAnyHost() && !isLoopbackHost(request.headers.host)) return failureAnswer(new HostNotAllowedError());
  if ((request.routeOptions.config as RouteConfig).protected !== true) return undefined;
  if (parts.draining()) return failureAnswer(new ServerDrainingError());
  if (!keyed) return admit(request, undefined, false);
  const policy = parts.keys.size === 0 ? undefined : parts.keys.policyOf(request.headers);
  if (policy !== undefined || parts.stored === undefined) return admit(request, policy);
  const key = presentedKey(request.headers);
  const stored = key === undefined ? undefined : parts.stored.policyOf(key);
  return isPromise(stored) ? stored.then((found) => admit(request, found)) : admit(request, stored);
}

/** Lets the request in as `policy`'s caller; without a policy on a server with keys, 401. */
function admit(request: FastifyRequest, policy: KeyPolicy | undefined, keyed = true): FailureAnswer | undefined {
  if (keyed && policy === undefined) return failureAnswer(new UnauthorizedError());
  try {
    request.caller = callerOf(policy, request.headers[PRIORITY_HEADER]);
  } catch (error) {
    return failureAnswer(error);
  }
  return undefined;
}

export const notFound = (request: FastifyRequest): FailureAnswer => ({
  status: 404,
  type: 'invalid_request_error',
  code: 'not_found',
  param: null,
  message: `No route ${request.method} ${pathOf(request.url)}`,
});

/** The path as sent, without its query and cut short: it is echoed to the caller. */
const pathOf = (url: string) => {
  const path = url.split('?', 1)[0]!;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

/** A `Host` header (`name:port`, `[::1]:port`) naming a loopback host. */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  return isLoopbackName(host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, ''));
}

/** `localhost` (and its subdomains), 127.0.0.0/8 or ::1. */
export function isLoopbackName(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true;
  if (isIP(lower) === 4) return lower.startsWith('127.');
  return lower === '::1';
}
