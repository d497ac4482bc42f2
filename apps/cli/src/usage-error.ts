/** A flag or argument the user got wrong (exit code 2). `flag` names it, e.g. `--since`. */
export class UsageError extends Error {
  readonly flag: string;

  constructor(flag: string, problem: string) {
    super(`${flag}: ${problem}`);
    this.name = 'UsageError';
    this.flag = flag;
  }
}
