// Where the behaviours live: otel-subscriber.ts turns the clients' events into spans and metrics;
// attributes.ts holds their names.
export { otelSubscriber, INSTRUMENTATION_NAME, type OtelSubscriberOptions } from './otel-subscriber.js';
export { ATTR, METRIC, OPERATION_NAME, BREAKER_STATE_VALUE, errorType } from './attributes.js';
