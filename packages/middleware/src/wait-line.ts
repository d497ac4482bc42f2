import { abortError, type Sleep } from '@pgw/core';
import { followSignal } from '@pgw/core/internal';

/** The reason a waiter's own sleep is cut short: room was freed, look again now. */
const WOKEN = Symbol('woken');

/**
 * The callers of one governed pipeline that are waiting for room, in arrival order. Only the head
 * tries admission; a caller arriving while anyone waits joins the back instead of trying, so nobody
 * overtakes. Whenever an attempt gives its permit back (`roomFreed`) the head is woken at once —
 * no polling gap — and a head that is admitted hands the turn to the next waiter, which tries at
 * once too (several slots freed together fill in order). Waits still end at their retry hint, so
 * room freed where this process cannot see it (another worker, an expired lease) is found too.
 * See README "Fair admission".
 */
export class WaitLine {
  private readonly waiters: Waiter[] = [];

  get empty(): boolean {
    return this.waiters.length === 0;
  }

  /** Takes a place at the back. The caller must `leave()` it, whatever happens. */
  join(): Waiter {
    const waiter = new Waiter(this);
    this.waiters.push(waiter);
    return waiter;
  }

  /** Room was freed (a permit, a pacer slot or a probe lease came back): the head looks again now. */
  roomFreed(): void {
    this.waiters[0]?.wake();
  }

  isHead(waiter: Waiter): boolean {
    return this.waiters[0] === waiter;
  }

  remove(waiter: Waiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index < 0) return;
    this.waiters.splice(index, 1);
    if (index === 0) this.roomFreed();
  }
}

/** One caller's place in the line. */
export class Waiter {
  /** A wake that came while the waiter was not asleep (it was trying): its next wait returns at once. */
  private pendingWake = false;
  private interrupt: (() => void) | undefined;

  constructor(private readonly line: WaitLine) {}

  get atHead(): boolean {
    return this.line.isHead(this);
  }

  wake(): void {
    if (this.interrupt) this.interrupt();
    else this.pendingWake = true;
  }

  /**
   * Sleeps up to `ms`, less if woken. Listens to the call's signal through a per-wait controller,
   * so a signal shared by many calls never gathers one listener per waiter.
   */
  async wait(ms: number, signal: AbortSignal, sleep: Sleep): Promise<void> {
    if (this.pendingWake) {
      this.pendingWake = false;
      return;
    }
    const controller = new AbortController();
    const unfollow = followSignal(signal, controller);
    this.interrupt = () => controller.abort(WOKEN);
    try {
      await sleep(ms, controller.signal);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (controller.signal.reason !== WOKEN) throw error;
    } finally {
      this.interrupt = undefined;
      unfollow();
    }
  }

  /** Idempotent; the next waiter is woken when the head leaves. */
  leave(): void {
    this.line.remove(this);
  }
}
