/** Degrades a repeated failure to one warning per kind: a flapping store must not flood the log. */
export class WarnOnce {
  private readonly seen = new Set<string>();

  constructor(private readonly warn: (message: string) => void) {}

  warnOnce(kind: string, message: string): void {
    if (this.seen.has(kind)) return;
    this.seen.add(kind);
    this.warn(message);
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
