import type { CallInfo } from '@pgw/core';
import type { Middleware } from './compose.js';

/** What a user middleware sees of the call: its dimensions and its signal (the call deadline's, inside the boundary). */
export interface MiddlewareContext extends CallInfo {
  readonly signal: AbortSignal;
}

/**
 * A layer of the user's own on the chat or embedding path (redaction, guardrails, prompt rewriting).
 * It sits inside the call deadline and outside the cache: see README "User middleware".
 * `transformRequest` runs first; `wrapCall` then gets the transformed request and a `next` that
 * continues inward (call it zero times to answer yourself, once, or more). Throw a
 * RequestRejectedError to refuse a request: nothing is sent and nothing is retried.
 */
export interface UserMiddleware<Req, Res> {
  readonly name?: string;
  transformRequest?(request: Req, ctx: MiddlewareContext): Req | Promise<Req>;
  wrapCall?(next: (request: Req) => Promise<Res>, request: Req, ctx: MiddlewareContext): Promise<Res>;
}

/** The user's middleware as onion layers, `list[0]` outermost. Checks the list first, naming a bad entry. */
export function userLayers<Req, Res>(list: unknown, origin: string): Array<Middleware<Req, Res>> {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError(`${origin} must be an array of middleware`);
  return list.map((entry: unknown, index) => {
    const hooks = entry as UserMiddleware<Req, Res> | null;
    const valid =
      typeof hooks === 'object' &&
      hooks !== null &&
      (typeof hooks.transformRequest === 'function' || typeof hooks.wrapCall === 'function') &&
      [hooks.transformRequest, hooks.wrapCall].every((hook) => hook === undefined || typeof hook === 'function');
    if (!valid) throw new TypeError(`${origin}[${index}] must be an object with transformRequest and/or wrapCall functions`);
    return layer(hooks);
  });
}

function layer<Req, Res>(hooks: UserMiddleware<Req, Res>): Middleware<Req, Res> {
  return async (call, next) => {
    const { ctx } = call;
    const request = hooks.transformRequest ? await hooks.transformRequest(call.request, ctx) : call.request;
    const inward = (nextRequest: Req): Promise<Res> => next({ request: nextRequest, ctx });
    return hooks.wrapCall ? hooks.wrapCall(inward, request, ctx) : inward(request);
  };
}
