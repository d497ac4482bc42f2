/**
 * Configuration problems of one scope, as many as can be found in one run. The settings loader
 * stops at the first bad key; after each problem the offending key is set aside and the load is
 * repeated, so one `pgw check` lists every independently bad key instead of one per run.
 */
import { SettingsError } from '@pgw/client';
import type { EnvRecord } from '@pgw/client';

/** A loop guard: far more problems than anyone fixes in one go. */
const MAX_PROBLEMS = 20;

export interface ConfigCheck<T> {
  /** Present only when there is no problem. */
  settings?: T;
  problems: SettingsError[];
}

export function checkConfig<T>(load: (env: EnvRecord) => T, env: ReadonlyMap<string, string>): ConfigCheck<T> {
  const remaining = new Map(env);
  const problems: SettingsError[] = [];
  while (problems.length < MAX_PROBLEMS) {
    try {
      const settings = load(Object.fromEntries(remaining));
      return problems.length === 0 ? { settings, problems } : { problems };
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      // A repeated key is a consequence of setting it aside; a key not in the env (a missing
      // required one) cannot be set aside. Either way, further loads would find nothing new.
      if (problems.some((p) => p.key === error.key)) break;
      problems.push(error);
      if (!remaining.delete(error.key)) break;
    }
  }
  return { problems };
}
