export * from './errors.js';
export * from './types.js';
export * from './ports.js';
export * from './telemetry.js';
