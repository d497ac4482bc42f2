/** The measured figure of each case, printed once per file so `docs/reliability.md` can quote it. */

const figures: Array<[string, string]> = [];

export function recordFigure(testName: string, figure: string): void {
  figures.push([testName, figure]);
}

/** For each file's afterAll. */
export function printFigures(): void {
  for (const [name, figure] of figures.splice(0)) console.info(`[figure] ${name}: ${figure}`);
}

/** Milliseconds, rounded, for a figure. */
export const ms = (value: number): string => `${Math.round(value)} ms`;
