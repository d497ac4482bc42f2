/** A request's own AbortController: a client that goes away (the response closes unfinished) aborts its governed call. */
import type { ServerResponse } from 'node:http';

export function abortOnDisconnect(response: ServerResponse, controller: AbortController): () => void {
  const onClose = () => {
    if (!response.writableFinished) controller.abort(new Error('the HTTP client disconnected'));
  };
  response.once('close', onClose);
  return () => response.off('close', onClose);
}
