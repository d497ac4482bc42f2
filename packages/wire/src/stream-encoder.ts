/** How one protocol writes a stream as Server-Sent Events text: its opening, a delta, the end of a whole answer, the end after a failure. */
import type { ChatDelta, LLMResponse } from '@pgw/core';
import type { WireFailure } from './failure.js';

export interface StreamEncoder {
  start(): string;
  delta(delta: ChatDelta): string;
  /** A Responses stream keeps its answer (the caller's store) before it says it finished: the end may wait. */
  finish(answer: LLMResponse): string | Promise<string>;
  fail(failure: WireFailure): string;
}
