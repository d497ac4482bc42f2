import type { BreakerTransition } from '@pgw/core';
import type { EventHub } from '../telemetry/event-hub.js';

/** Hands a transition the governor reported (its admission's or its finish's) to the breaker subscribers. */
export function reportBreakerChange(events: EventHub | undefined, scope: string, source: string, transition: BreakerTransition | undefined): void {
  if (transition !== undefined && events?.on.onBreakerStateChange) events.emit('onBreakerStateChange', { scope, source, ...transition });
}
