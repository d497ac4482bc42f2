import type { MockScript, SourceScript, Step } from './types.js';

const STEP_KINDS = new Set<Step['kind']>([
  'ok',
  'status',
  'rate_limit',
  'insufficient_quota',
  'context_length_exceeded',
  'hang',
  'truncate',
  'stall',
  'malformed',
  'wrong_dim',
  'latency',
  'in_band_error',
  'oversized',
  'tool_calls',
]);

/** Throws a TypeError naming the offending key; scripts also arrive from JSON files, so shape is checked. */
export function validateScript(script: MockScript): void {
  if (typeof script !== 'object' || script === null || typeof script.sources !== 'object' || script.sources === null) {
    throw new TypeError("mock script: 'sources' must be an object of source name → script");
  }
  for (const [name, source] of Object.entries(script.sources)) validateSourceScript(name, source);
}

export function validateSourceScript(name: string, source: SourceScript): void {
  const where = `mock script sources.${name}`;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new TypeError(`${where}: a source name may use only letters, digits, '_', '.', '-'`);
  if (typeof source !== 'object' || source === null) throw new TypeError(`${where}: must be an object`);
  for (const key of ['latencyMs', 'ttftMs', 'interTokenMs', 'embeddingDim'] as const) {
    const value = source[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new TypeError(`${where}.${key}: must be a finite number >= 0`);
    }
  }
  const rate = source.failureRate;
  if (rate !== undefined && !(typeof rate === 'number' && rate >= 0 && rate <= 1)) {
    throw new TypeError(`${where}.failureRate: must be a number in [0, 1]`);
  }
  validateSteps(`${where}.steps`, source.steps);
  validateSteps(`${where}.failureSteps`, source.failureSteps);
  if (source.otherwise !== undefined) validateStep(`${where}.otherwise`, source.otherwise);
}

function validateSteps(where: string, steps: Step[] | undefined): void {
  if (steps === undefined) return;
  if (!Array.isArray(steps)) throw new TypeError(`${where}: must be an array of steps`);
  steps.forEach((step, i) => validateStep(`${where}[${i}]`, step));
}

function validateStep(where: string, step: Step): void {
  if (typeof step !== 'object' || step === null || !STEP_KINDS.has(step.kind)) {
    throw new TypeError(`${where}: unknown step kind; expected one of ${[...STEP_KINDS].join(', ')}`);
  }
  if (step.kind === 'status' && !(Number.isInteger(step.status) && step.status >= 100 && step.status <= 599)) {
    throw new TypeError(`${where}.status: must be an HTTP status code`);
  }
  if (step.kind === 'wrong_dim' && !(Number.isInteger(step.dim) && step.dim >= 0)) {
    throw new TypeError(`${where}.dim: must be an integer >= 0`);
  }
  if (step.kind === 'context_length_exceeded' && step.contextWindow !== undefined && !(Number.isInteger(step.contextWindow) && step.contextWindow > 0)) {
    throw new TypeError(`${where}.contextWindow: must be an integer > 0`);
  }
  if (step.kind === 'latency' && !(typeof step.ms === 'number' && step.ms >= 0)) {
    throw new TypeError(`${where}.ms: must be a number >= 0`);
  }
  if (step.kind === 'oversized' && !(typeof step.mb === 'number' && step.mb > 0 && step.mb <= 1024)) {
    throw new TypeError(`${where}.mb: must be a number in (0, 1024]`);
  }
  if (step.kind === 'tool_calls') {
    if (!Array.isArray(step.calls) || step.calls.length === 0) throw new TypeError(`${where}.calls: must be a non-empty array of { id?, name, arguments }`);
    step.calls.forEach((call, i) => {
      if (typeof call !== 'object' || call === null || typeof call.name !== 'string') throw new TypeError(`${where}.calls[${i}].name: must be a string`);
      if (typeof call.arguments !== 'string' && (typeof call.arguments !== 'object' || call.arguments === null)) {
        throw new TypeError(`${where}.calls[${i}].arguments: must be a string or an object`);
      }
      if (call.custom !== undefined && typeof call.custom !== 'boolean') throw new TypeError(`${where}.calls[${i}].custom: must be true or false`);
    });
    if (step.chunkChars !== undefined && !(Number.isInteger(step.chunkChars) && step.chunkChars > 0)) throw new TypeError(`${where}.chunkChars: must be an integer > 0`);
    if (step.truncateAfter !== undefined && !(Number.isInteger(step.truncateAfter) && step.truncateAfter >= 0)) throw new TypeError(`${where}.truncateAfter: must be an integer >= 0`);
  }
  if (step.kind === 'in_band_error') {
    if (step.as !== undefined && step.as !== 'data' && step.as !== 'event') throw new TypeError(`${where}.as: must be 'data' or 'event'`);
    if (step.error !== undefined && (typeof step.error !== 'object' || step.error === null)) throw new TypeError(`${where}.error: must be an object`);
  }
}
