import { combineSignals, wholeAnswerDelta, type ChatDelta, type LLMResponse } from '@pgw/core';

/** What a streamed chat call hands back: the deltas as they arrive, and the whole answer once complete. */
export interface ChatStream extends AsyncIterable<ChatDelta> {
  /**
   * Resolves with the full answer (content = the concatenated content deltas) once the call completed;
   * rejects with the error the iterator throws. Marked handled: a caller that only iterates sees the
   * error there and gets no unhandled rejection.
   */
  readonly response: Promise<LLMResponse>;
}

/** What the call gets from its stream: cancellation (the caller's signal or the consumer stopping) and the delta sink. */
export interface StreamHooks {
  signal: AbortSignal;
  onDelta: (delta: ChatDelta) => void;
}

/**
 * Starts `call` at once (a caller that only awaits `response` needs no iteration) and exposes its
 * deltas as a single-consumer async iterator. Deltas are queued until pulled: the upstream is never
 * paused (a paused stream would hold its permit and trip the watchdog), so the buffer is bounded by
 * the answer's length. Stopping early (`break` → `return()`) aborts the call and resolves once its
 * cleanup — settle, release, the cancelled attempt row, the terminal row — has run.
 */
export function streamCall(call: (hooks: StreamHooks) => Promise<LLMResponse>, callerSignal?: AbortSignal): ChatStream {
  return new DeltaStream(call, callerSignal);
}

const DONE: IteratorResult<ChatDelta> = { done: true, value: undefined };

type Ending = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

class DeltaStream implements ChatStream, AsyncIterator<ChatDelta> {
  readonly response: Promise<LLMResponse>;
  private readonly queue: ChatDelta[] = [];
  private readonly consumerStop = new AbortController();
  private answerForwarded = false;
  /** How the call ended; the iterator reports it once the queue is drained. */
  private ending: Ending | undefined;
  /** The consumer is done: it stopped early, or it has seen the end. */
  private closed = false;
  private arrival: { promise: Promise<void>; wake: () => void } | undefined;

  constructor(call: (hooks: StreamHooks) => Promise<LLMResponse>, callerSignal: AbortSignal | undefined) {
    const combined = combineSignals([callerSignal, this.consumerStop.signal]);
    const started = new Promise<LLMResponse>((resolve) => resolve(call({ signal: combined.signal, onDelta: this.push })));
    this.response = started
      .then(
        (response) => {
          // Nothing was streamed (a cache hit, a transport that answered whole): the answer is one delta.
          const answered = response.content !== '' || (response.toolCalls?.length ?? 0) > 0;
          const whole = answered && !this.answerForwarded ? wholeAnswerDelta(response) : undefined;
          if (whole !== undefined) this.push(whole);
          this.end({ failed: false });
          return response;
        },
        (error: unknown) => {
          this.end({ failed: true, error });
          throw error;
        },
      )
      .finally(() => combined.dispose());
    this.response.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
    return this;
  }

  async next(): Promise<IteratorResult<ChatDelta>> {
    for (;;) {
      if (this.closed) return DONE;
      const delta = this.queue.shift();
      if (delta !== undefined) return { done: false, value: delta };
      if (this.ending) {
        this.closed = true;
        if (this.ending.failed) throw this.ending.error;
        return DONE;
      }
      this.arrival ??= withWake();
      await this.arrival.promise;
    }
  }

  /** The consumer stopped (`break`): abort the call if it still runs, and wait for its cleanup. */
  async return(): Promise<IteratorResult<ChatDelta>> {
    if (!this.closed) {
      this.closed = true;
      this.queue.length = 0;
      if (!this.ending) this.consumerStop.abort(new DOMException('the consumer stopped reading the chat stream', 'AbortError'));
    }
    await this.response.then(
      () => undefined,
      () => undefined,
    );
    return DONE;
  }

  private readonly push = (delta: ChatDelta): void => {
    if (this.closed) return;
    if (delta.content || delta.toolCalls?.length) this.answerForwarded = true;
    this.queue.push(delta);
    this.wakeConsumer();
  };

  private end(ending: Ending): void {
    this.ending = ending;
    this.wakeConsumer();
  }

  private wakeConsumer(): void {
    const arrival = this.arrival;
    this.arrival = undefined;
    arrival?.wake();
  }
}

function withWake(): { promise: Promise<void>; wake: () => void } {
  let wake!: () => void;
  const promise = new Promise<void>((resolve) => (wake = resolve));
  return { promise, wake };
}
