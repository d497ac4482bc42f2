/**
 * Reads the vendored OpenAPI document once per test run and leaves its component schemas as JSON
 * where every test file's conformance check loads them (YAML parsing takes seconds; JSON does not).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { TestProject } from 'vitest/node';

const SPEC = new URL('../../spec/openapi.yaml', import.meta.url);

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a JSON file holding `components` of the vendored OpenAPI document. */
    openapiComponents: string;
  }
}

export default function setup(project: TestProject): void {
  const text = readFileSync(SPEC, 'utf8');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const path = join(tmpdir(), `pgw-openapi-components-${digest}.json`);
  if (!existsSync(path)) {
    const document = parse(text) as { components: unknown };
    // Written aside, then renamed: a parallel run never reads half a file.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(document.components));
    renameSync(partial, path);
  }
  project.provide('openapiComponents', path);
}
