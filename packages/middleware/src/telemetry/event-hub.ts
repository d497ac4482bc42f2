import type { GatewayEventName, GatewayEvents, GatewaySubscriber } from '@pgw/core';
import { GATEWAY_EVENT_NAMES } from '@pgw/core';
import { describeError, type WarnOnce } from '../warn-once.js';

type Listener = (event: GatewayEvents[GatewayEventName]) => void;

/**
 * Fans the governed path's events out to its subscribers. Emitters check `on[name]` before
 * building an event, so an event nobody listens to costs one property read. A subscriber that
 * throws is caught and warned about once; the call and the other subscribers go on.
 */
export class EventHub {
  /** Whether anyone listens to each event. */
  readonly on: Readonly<Record<GatewayEventName, boolean>>;
  private readonly listeners: Record<GatewayEventName, Array<{ index: number; listener: Listener; label: string }>>;

  constructor(
    subscribers: readonly GatewaySubscriber[],
    private readonly warnings: WarnOnce,
  ) {
    const listeners = Object.fromEntries(GATEWAY_EVENT_NAMES.map((name) => [name, []])) as unknown as EventHub['listeners'];
    // Bound once here: emitting is then a loop over plain functions.
    subscribers.forEach((subscriber, index) => {
      const label = subscriber.name ?? `#${index}`;
      for (const name of GATEWAY_EVENT_NAMES) {
        const method = subscriber[name] as Listener | undefined;
        if (typeof method === 'function') listeners[name].push({ index, label, listener: method.bind(subscriber) });
      }
    });
    this.listeners = listeners;
    this.on = Object.fromEntries(GATEWAY_EVENT_NAMES.map((name) => [name, listeners[name].length > 0])) as Record<GatewayEventName, boolean>;
  }

  emit<K extends GatewayEventName>(name: K, event: GatewayEvents[K]): void {
    for (const { index, label, listener } of this.listeners[name]) {
      try {
        listener(event as GatewayEvents[GatewayEventName]);
      } catch (error) {
        this.warnings.warnOnce(
          `subscriber.${index}`,
          `event subscriber ${label} threw in ${name} (reported once; the call goes on): ${describeError(error)}`,
        );
      }
    }
  }
}

/** Checks a `subscribers` option: an array of objects; names the bad entry. */
export function assertSubscribers(value: unknown, origin: string): readonly GatewaySubscriber[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${origin} must be an array of subscribers`);
  value.forEach((subscriber: unknown, index) => {
    if (typeof subscriber !== 'object' || subscriber === null) throw new TypeError(`${origin}[${index}] must be an object with on… methods`);
    // A method named like an event that is none (a typo) would never be called: refuse it.
    const unknown = Object.entries(subscriber)
      .filter(([key, method]) => /^on[A-Z]/.test(key) && typeof method === 'function' && !GATEWAY_EVENT_NAMES.includes(key as GatewayEventName))
      .map(([key]) => key);
    if (unknown.length > 0) throw new TypeError(`${origin}[${index}] has unknown event method(s) ${unknown.join(', ')}`);
  });
  return value as GatewaySubscriber[];
}
