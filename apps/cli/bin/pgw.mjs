#!/usr/bin/env node
// Runs the TypeScript source through tsx, so the CLI needs no build step. Workspace packages
// resolve to their source through the `@pgw/source` export condition, which a resolve hook adds
// (the in-process equivalent of `node --conditions=@pgw/source`).
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
const addSourceCondition = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...new Set(['@pgw/source', ...context.conditions])] });
}`;
register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);

const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
