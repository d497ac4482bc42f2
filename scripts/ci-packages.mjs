#!/usr/bin/env node
// Prints the JSON array of workspace packages that have tests: the CI workflow's per-package matrix
// is generated from it, so a new package joins the matrix without editing the workflow.
import { testedPackages } from './lib/workspace.mjs';

console.log(JSON.stringify(testedPackages().map(({ name }) => name)));
