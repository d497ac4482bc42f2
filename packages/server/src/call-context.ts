/**
 * What a streamed answer's headers need before the answer is whole: the call id and the source of
 * the attempt now running. The client's events carry them; an AsyncLocalStorage entered around
 * the `chatStream` call ties the events of that call to its HTTP request (subscribers run
 * synchronously on the call's own async path).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { GatewaySubscriber } from '@pgw/client';

export interface StreamCallContext {
  callId?: string;
  source?: string;
}

const storage = new AsyncLocalStorage<StreamCallContext>();

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
  },
};
