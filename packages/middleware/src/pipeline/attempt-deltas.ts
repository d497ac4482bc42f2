import type { ChatDelta } from '@pgw/core';

/**
 * One attempt's window onto the caller's delta sink (`ctx.onDelta`). It forwards only while the
 * attempt runs — a transport that ignores its abort must not write into the next attempt's stream —
 * and remembers the content it forwarded: once any content or tool-call fragment reached the caller,
 * the call is committed to this attempt (no retry, no failover can take delivered tokens back).
 * Reasoning deltas are forwarded but do not commit.
 */
export class AttemptDeltas {
  private open = true;
  private content = '';
  private committed = false;

  constructor(private readonly sink: (delta: ChatDelta) => void) {}

  readonly forward = (delta: ChatDelta): void => {
    if (!this.open) return;
    if (delta.content) this.content += delta.content;
    if (delta.content || delta.toolCalls?.length) this.committed = true;
    this.sink(delta);
  };

  /** The attempt has ended: later deltas are dropped. */
  close(): void {
    this.open = false;
  }

  /** The content delivered to the caller ('' when only tool-call fragments were), or undefined while the attempt is not committed. */
  get committedContent(): string | undefined {
    return this.committed ? this.content : undefined;
  }
}
