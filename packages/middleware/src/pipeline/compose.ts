import type { CallContext } from './context.js';

/** A request on its way through the onion, with the context of its logical call. */
export interface Call<Req> {
  readonly request: Req;
  readonly ctx: CallContext;
}

export type Next<Req, Res> = (call: Call<Req>) => Promise<Res>;

/** One layer of the onion. It may call `next` zero times (cache hit), once, or several times (structured re-ask). */
export type Middleware<Req, Res> = (call: Call<Req>, next: Next<Req, Res>) => Promise<Res>;

/** Builds the onion: `middlewares[0]` is outermost, `terminal` innermost. */
export function compose<Req, Res>(middlewares: ReadonlyArray<Middleware<Req, Res>>, terminal: Next<Req, Res>): Next<Req, Res> {
  return middlewares.reduceRight<Next<Req, Res>>((next, middleware) => (call) => middleware(call, next), terminal);
}
