import { abortError, DEFAULT_CALLER, PRIORITIES, type Caller, type Priority, type Sleep } from '@pgw/core';
import { followSignal } from '@pgw/core/internal';

/** The reason a waiter's own sleep is cut short: room was freed, look again now. */
const WOKEN = Symbol('woken');

const URGENCY: Readonly<Record<Priority, number>> = Object.freeze(Object.fromEntries(PRIORITIES.map((priority, rank) => [priority, rank])) as Record<Priority, number>);

/**
 * The callers of one governed pipeline that are waiting for room, one queue per tenant and class.
 * Only the head tries admission; a caller arriving while anyone waits joins its queue instead of
 * trying, so nobody overtakes. The head is the first waiter of the most urgent class (interactive
 * before batch) whose tenant is furthest below its weighted share: start-time fair queuing — a
 * waiter's tag is its tenant's previous tag, or the class's virtual time if later, plus 1 / weight,
 * and the class's virtual time moves to each served waiter's tag. A tenant that waited long thus
 * gains no credit, and within one tenant arrival order stays. Whenever an attempt gives its permit
 * back (`roomFreed`) the head is woken at once — no polling gap — and a head that is admitted hands
 * the turn on. Waits still end at their retry hint, so room freed where this process cannot see it
 * (another worker, an expired lease) is found too. A queue whose tenant is at its own bound is
 * parked: it waits for its tenant, not for the scope, so it holds no other tenant back; its first
 * waiter tries alone when its hint passes or its tenant frees room. See README "Fair admission".
 */
export class WaitLine {
  private readonly queues = new Map<string, TenantQueue>();
  private readonly virtualTime: Record<Priority, number> = { interactive: 0, batch: 0 };
  private head: Waiter | undefined;
  private arrivals = 0;

  /** `weightOf`: a tenant's share of a full scope against the others that wait. */
  constructor(private readonly weightOf: (tenantId: string) => number = () => 1) {}

  get empty(): boolean {
    return this.queues.size === 0;
  }

  /** How many of the tenant's callers wait, in every class. */
  waiting(tenantId: string): number {
    let count = 0;
    for (const queue of this.queues.values()) if (queue.caller.tenantId === tenantId) count += queue.waiters.length;
    return count;
  }

  /** Takes a place in its tenant's queue. The caller must `leave()` it, whatever happens. */
  join(caller: Caller = DEFAULT_CALLER): Waiter {
    const key = `${caller.priority}\n${caller.tenantId}`;
    let queue = this.queues.get(key);
    if (queue === undefined) {
      queue = new TenantQueue(caller);
      this.queues.set(key, queue);
    }
    const tag = Math.max(this.virtualTime[caller.priority], queue.lastTag) + 1 / this.weightOf(caller.tenantId);
    queue.lastTag = tag;
    const waiter = new Waiter(this, queue, tag, this.arrivals++);
    queue.waiters.push(waiter);
    this.chooseHead();
    return waiter;
  }

  /**
   * Room was freed (a permit, a pacer slot or a probe lease came back): the head looks again now,
   * and so does a parked queue of the tenant that freed it.
   */
  roomFreed(tenantId?: string): void {
    this.head?.wake();
    if (tenantId === undefined) return;
    for (const queue of this.queues.values()) if (queue.parked && queue.caller.tenantId === tenantId) queue.waiters[0]?.wake();
  }

  /** Whether `waiter` may try now: it is the head, or first of a parked queue. */
  mayTry(waiter: Waiter): boolean {
    return this.head === waiter || (waiter.queue.parked && waiter.queue.waiters[0] === waiter);
  }

  /** The waiter's tenant is at its own bound (parked) or waits for the scope again (not). */
  setParked(waiter: Waiter, parked: boolean): void {
    if (waiter.queue.parked === parked) return;
    waiter.queue.parked = parked;
    this.handOn();
  }

  /** The waiter was admitted: its class's virtual time moves on to its tag, and its queue waits for the scope again. */
  served(waiter: Waiter): void {
    const { priority } = waiter.queue.caller;
    this.virtualTime[priority] = Math.max(this.virtualTime[priority], waiter.tag);
    waiter.queue.parked = false;
  }

  remove(waiter: Waiter): void {
    const { queue } = waiter;
    const index = queue.waiters.indexOf(waiter);
    if (index < 0) return;
    queue.waiters.splice(index, 1);
    if (queue.waiters.length === 0) this.queues.delete(`${queue.caller.priority}\n${queue.caller.tenantId}`);
    if (queue.parked && index === 0) queue.waiters[0]?.wake();
    if (this.head === waiter || index === 0) this.handOn();
  }

  /** The head may have changed: whoever is head now tries at once. */
  private handOn(): void {
    const before = this.head;
    this.chooseHead();
    if (this.head !== before) this.head?.wake();
  }

  private chooseHead(): void {
    let best: Waiter | undefined;
    for (const queue of this.queues.values()) {
      const first = queue.waiters[0];
      if (queue.parked || first === undefined) continue;
      if (best === undefined || before(first, best)) best = first;
    }
    this.head = best;
  }
}

/** More urgent class first, then the smaller tag, then the earlier arrival. */
function before(a: Waiter, b: Waiter): boolean {
  const urgency = URGENCY[a.queue.caller.priority] - URGENCY[b.queue.caller.priority];
  if (urgency !== 0) return urgency < 0;
  return a.tag !== b.tag ? a.tag < b.tag : a.arrival < b.arrival;
}

/** One tenant's waiters of one class, in arrival order. */
class TenantQueue {
  readonly waiters: Waiter[] = [];
  lastTag = 0;
  /** Its tenant is at its own bound: the queue is not served until one of its waiters is admitted or refused for the scope. */
  parked = false;

  constructor(readonly caller: Caller) {}
}

/** One caller's place in the line. */
export class Waiter {
  /** A wake that came while the waiter was not asleep (it was trying): its next wait returns at once. */
  private pendingWake = false;
  private interrupt: (() => void) | undefined;

  constructor(
    private readonly line: WaitLine,
    readonly queue: TenantQueue,
    readonly tag: number,
    readonly arrival: number,
  ) {}

  /** Whether this waiter may try admission now. */
  get atHead(): boolean {
    return this.line.mayTry(this);
  }

  wake(): void {
    if (this.interrupt) this.interrupt();
    else this.pendingWake = true;
  }

  /** Its tenant's own bound refused it: its queue steps aside until the tenant has room. */
  park(): void {
    this.line.setParked(this, true);
  }

  /** It waits for the scope (or a source) again, not for its tenant. */
  unpark(): void {
    this.line.setParked(this, false);
  }

  /** It was admitted (it leaves next). */
  served(): void {
    this.line.served(this);
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

  /** Idempotent; the next head is woken when the head leaves. */
  leave(): void {
    this.line.remove(this);
  }
}
