import type { BreakerChangeReason, BreakerState, Gate, GateOutcome, GateRefusal, GateTicket } from '@pgw/core';
import type { EventHub } from './event-hub.js';

/**
 * Observes breaker transitions without changing the Gate port: from what admission already gets
 * (a probe ticket = half-open, a plain ticket = closed, a refusal names its state) and, after a
 * verdict that can move the breaker (a failure, a dead source, any probe verdict), one `snapshot`.
 * A plain success in the closed state cannot change it and costs nothing. The last state seen is
 * per process: with a shared (Redis) breaker each process reports the transitions it observes,
 * and one made elsewhere shows up as `observed`. Built only when someone listens.
 */
export class BreakerWatch {
  private readonly known = new Map<string, BreakerState>();

  constructor(
    private readonly scope: string,
    private readonly gate: Gate,
    private readonly events: EventHub,
  ) {}

  admitted(ticket: GateTicket): void {
    this.see(ticket.source, ticket.probe ? 'half_open' : 'closed', ticket.probe ? 'cooldown_elapsed' : 'observed');
  }

  refused(refusal: GateRefusal): void {
    this.see(refusal.source, refusal.state, 'observed');
  }

  async afterVerdict(ticket: GateTicket, outcome: GateOutcome): Promise<void> {
    if (!ticket.probe && outcome === 'success') return;
    let state: BreakerState;
    try {
      state = (await this.gate.snapshot(ticket.source)).state;
    } catch {
      return; // observation only: a store that fails here already warned through its write-back
    }
    this.see(ticket.source, state, reasonOf(ticket, outcome));
  }

  private see(source: string, state: BreakerState, reason: BreakerChangeReason): void {
    const from = this.known.get(source) ?? 'closed';
    this.known.set(source, state);
    if (from !== state) this.events.emit('onBreakerStateChange', { scope: this.scope, source, from, to: state, reason });
  }
}

function reasonOf(ticket: GateTicket, outcome: GateOutcome): BreakerChangeReason {
  if (ticket.probe) return outcome === 'success' || outcome === 'invalid' ? 'probe_succeeded' : 'probe_failed';
  return outcome === 'dead' ? 'source_dead' : 'failures';
}
