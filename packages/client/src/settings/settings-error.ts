export interface SettingsErrorOptions {
  /** The env key at fault (`LLM__SOURCE__QWEN__RPM`), or the settings field when no key exists for it. */
  key: string;
  /** What is wrong, without the key (`must be an integer ≥ 0`). */
  problem: string;
  /** The raw env value, echoed only for keys that hold no secret. */
  value?: string;
  /** The settings field (`sources[0].rpm`) when the value came from direct construction. */
  field?: string;
  cause?: unknown;
}

/**
 * A configuration value is missing or malformed. It names the env key so a multi-scope deployment
 * sees which key is wrong; it is a RangeError because a bad setting is an out-of-range argument.
 */
export class SettingsError extends RangeError {
  readonly key: string;
  readonly problem: string;
  readonly field: string | undefined;

  constructor(options: SettingsErrorOptions) {
    const shown = options.value === undefined ? options.key : `${options.key}=${JSON.stringify(options.value)}`;
    const field = options.field !== undefined && options.field !== options.key ? ` (settings field ${options.field})` : '';
    super(`${shown}${field}: ${options.problem}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SettingsError';
    this.key = options.key;
    this.problem = options.problem;
    this.field = options.field;
  }
}
