#!/usr/bin/env node
// Every reference into the project's docs (`docs/<file>.md#anchor`, in code comments and markdown)
// must name a heading that exists, so the references stay followable when a doc is edited. Anchors are
// GitHub's heading slugs. Runs in `pnpm lint`, with a self-check that a dangling reference is caught.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/workspace.mjs';

const REFERENCE = /docs\/([\w-]+\.md)#([\w-]+)/g;

function slug(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
}

const anchorsOf = new Map();
function anchors(doc) {
  if (!anchorsOf.has(doc)) {
    const file = path.join(root, 'docs', doc);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    anchorsOf.set(doc, new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug(match[1]))));
  }
  return anchorsOf.get(doc);
}

function dangling(text) {
  return [...text.matchAll(REFERENCE)].filter(([, doc, anchor]) => !anchors(doc).has(anchor)).map(([reference]) => reference);
}

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /\.(ts|mts|mjs|cjs|js|md|json|ya?ml|sh)$/.test(file) || file === '.env.example' || file === '.ci/run');

let failed = false;
let count = 0;
for (const file of tracked) {
  const full = path.join(root, file);
  if (!fs.existsSync(full)) continue;
  const text = fs.readFileSync(full, 'utf8');
  count += [...text.matchAll(REFERENCE)].length;
  for (const reference of dangling(text)) {
    console.error(`check-doc-links: ${file}: ${reference} names no heading`);
    failed = true;
  }
}
if (dangling(`see docs/architecture.md#${'no-such-heading'}`).length !== 1) {
  console.error('check-doc-links: self-check: a dangling reference was not caught');
  failed = true;
}
if (failed) process.exit(1);
console.log(`check-doc-links: ${count} references into docs/ resolve`);
