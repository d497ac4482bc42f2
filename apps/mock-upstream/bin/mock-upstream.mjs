#!/usr/bin/env node
// Runs the TypeScript source through tsx, so the mock needs no build step.
import { tsImport } from 'tsx/esm/api';

const { runCli } = await tsImport('../src/cli.ts', import.meta.url);
await runCli(process.argv.slice(2));
