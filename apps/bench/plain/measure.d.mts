export function cpuMs(pid: number): number;
export function percentiles(values: readonly number[], ps: readonly number[]): number[];
export function percentile(values: readonly number[], p: number): number;
export function median(values: readonly number[]): number;
