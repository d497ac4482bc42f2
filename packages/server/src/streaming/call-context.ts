/**
 * What a streamed answer's headers need before the answer is whole — the call id and the source of
 * the attempt now running — and what the tenant metrics need of every governed request: how long it
 * waited for its first attempt. The client's events carry them; an AsyncLocalStorage entered around
 * the call ties the events of that call to its HTTP request (subscribers run synchronously on the
 * call's own async path).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { GatewaySubscriber } from '@pgw/client';

export interface StreamCallContext {
  callId?: string;
  source?: string;
}

const storage = new AsyncLocalStorage<StreamCallContext>();

/** When a governed request was handed to its client, and how long it then waited for its first attempt. */
export interface Admission {
  readonly startedAt: number;
  waitMs?: number;
}

// Its own storage: a stream's context is entered inside the request's admission, and both must be seen.
const admissions = new AsyncLocalStorage<Admission>();

export function withAdmission<T>(admission: Admission, run: () => T): T {
  return admissions.run(admission, run);
}

export function withStreamContext<T>(context: StreamCallContext, run: () => T): T {
  return storage.run(context, run);
}

export const streamContextSubscriber: GatewaySubscriber = {
  name: 'pgw-server-stream-context',
  onCallStart: (event) => {
    const context = storage.getStore();
    if (context) context.callId = event.call.logicalCallId;
  },
  onAttemptStart: (event) => {
    const context = storage.getStore();
    if (context) context.source = event.source;
    const admission = admissions.getStore();
    if (admission && admission.waitMs === undefined) admission.waitMs = performance.now() - admission.startedAt;
  },
};
