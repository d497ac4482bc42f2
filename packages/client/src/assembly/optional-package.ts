/**
 * Optional adapters (Redis, SQLite/Postgres telemetry, MonkeyOCR) are loaded only when the
 * configuration asks for them, so an application installs only what it uses (docs/architecture.md#packages-and-layers).
 */

/** An optional package the configuration needs is not installed (or one of its own dependencies is not). */
export class MissingPackageError extends Error {
  readonly packageName: string;

  constructor(packageName: string, neededFor: string, cause: unknown) {
    super(`${neededFor} needs the package ${packageName}, which could not be loaded: install it (npm install ${packageName})`, {
      cause,
    });
    this.name = 'MissingPackageError';
    this.packageName = packageName;
  }
}

/**
 * Runs `load` (a thunk around a literal dynamic `import()`, so bundlers and the layer rules see the
 * specifier) and turns a missing module into a MissingPackageError naming the package.
 */
export async function loadOptional<T>(packageName: string, neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new MissingPackageError(packageName, neededFor, error);
    throw error;
  }
}
