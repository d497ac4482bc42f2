/** Reading response bodies without trusting their size. */
import type { IncomingHttpHeaders } from 'node:http';

/** A body read up to a cap; `cut` when reading stopped before its end. */
export interface CappedText {
  text: string;
  cut: boolean;
}

/** Reads at most about `limitBytes` of a body as text, then destroys the rest (an error page may be huge). */
export async function readCappedText(body: AsyncIterable<Uint8Array>, limitBytes: number): Promise<CappedText> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  let cut = false;
  // Leaving the loop early destroys the body, which closes its socket instead of returning it to the pool.
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    bytes += chunk.byteLength;
    if (bytes >= limitBytes) {
      cut = true;
      break;
    }
  }
  return { text: text + decoder.decode(), cut };
}

export function isEventStream(headers: IncomingHttpHeaders): boolean {
  return (headers['content-type'] ?? '').toLowerCase().includes('text/event-stream');
}
