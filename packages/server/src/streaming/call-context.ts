/**
 * What a governed request learns of its call from the client's events: how long it waited for its
 * first attempt (the tenant metrics), and the call id and the source of the attempt now running (a
 * streamed answer's headers, sent before the answer is whole).
 *
 * The events are tied to their request by the tenant and the request id the call's `meta` carries,
 * in a map of the server's own — not by an AsyncLocalStorage, which on Node 20 and 22 turns on
 * promise hooks for every promise of the process (bench/profiles.md, "A request's call without an
 * AsyncLocalStorage"). The request id may be the client's `x-request-id`: the map is scoped by
 * tenant, so one tenant never reaches another's request, and an id that two requests in flight share
 * gives neither a context (a header left empty rather than another request's call).
 */
import type { CallStartEvent, GatewaySubscriber } from '@pgw/client';

export interface RequestCall {
  /** When the request was handed to its route (`performance.now()`). */
  readonly startedAt: number;
  /** How long after `startedAt` its first attempt started. */
  waitMs?: number;
  callId?: string;
  source?: string;
}

interface OpenRequests {
  /** Undefined once a second request in flight has shown the same tenant and id. */
  call: RequestCall | undefined;
  requests: number;
}

export class RequestCalls {
  readonly #open = new Map<string, OpenRequests>();

  /** Ties the events of calls made for this tenant and request id to `call`, until the returned close is called. */
  open(tenantId: string, requestId: string, call: RequestCall): () => void {
    const key = keyOf(tenantId, requestId);
    const open = this.#open.get(key);
    if (open === undefined) this.#open.set(key, { call, requests: 1 });
    else {
      open.call = undefined;
      open.requests += 1;
    }
    return () => {
      const current = this.#open.get(key);
      if (current !== undefined && --current.requests === 0) this.#open.delete(key);
    };
  }

  readonly subscriber: GatewaySubscriber = {
    name: 'pgw-server-request-calls',
    onCallStart: (event) => {
      const call = this.#callOf(event.call);
      if (call) call.callId = event.call.logicalCallId;
    },
    onAttemptStart: (event) => {
      const call = this.#callOf(event.call);
      if (call === undefined) return;
      call.source = event.source;
      call.waitMs ??= performance.now() - call.startedAt;
    },
  };

  #callOf(info: CallStartEvent['call']): RequestCall | undefined {
    const requestId = info.meta?.['requestId'];
    return typeof requestId === 'string' ? this.#open.get(keyOf(info.tenantId ?? '', requestId))?.call : undefined;
  }
}

// A request id is visible ASCII (door.ts): the last newline parts the two unambiguously.
const keyOf = (tenantId: string, requestId: string) => `${tenantId}\n${requestId}`;
