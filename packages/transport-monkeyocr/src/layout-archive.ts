import { strFromU8, unzipSync } from 'fflate';
import type { LayoutElement } from '@pgw/core';
import { invalidResult } from './classify.js';

export interface LayoutArchive {
  markdown: string;
  elements: LayoutElement[];
  /** Every other entry of the archive (images…), by path. */
  files: Record<string, Uint8Array>;
}

const MARKDOWN_NAME = 'result.md';
const LAYOUT_NAME = 'layout.json';

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * Reads a `/parse` ZIP: markdown from `result.md` (or the archive's only `.md` file), elements from
 * `layout.json`, at any folder depth. A missing or broken archive is a ResultInvalidError.
 */
export function readLayoutArchive(bytes: Uint8Array, sourceName: string): LayoutArchive {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (error) {
    throw invalidResult(sourceName, 'layout archive', [`not a ZIP archive (${(error as Error).message})`]);
  }
  const paths = Object.keys(entries).filter((path) => !path.endsWith('/'));
  const markdownFiles = paths.filter((path) => path.toLowerCase().endsWith('.md'));
  const markdownPath = paths.find((path) => basename(path) === MARKDOWN_NAME) ?? (markdownFiles.length === 1 ? markdownFiles[0] : undefined);
  const layoutPath = paths.find((path) => basename(path) === LAYOUT_NAME);
  const missing = [
    ...(markdownPath === undefined ? [`no ${MARKDOWN_NAME} in the archive`] : []),
    ...(layoutPath === undefined ? [`no ${LAYOUT_NAME} in the archive`] : []),
  ];
  if (markdownPath === undefined || layoutPath === undefined) throw invalidResult(sourceName, 'layout archive', missing);

  const elements = parseElements(strFromU8(entries[layoutPath]!), sourceName);
  const files: Record<string, Uint8Array> = {};
  for (const path of paths) if (path !== markdownPath && path !== layoutPath) files[path] = entries[path]!;
  return { markdown: strFromU8(entries[markdownPath]!), elements, files };
}

function parseElements(text: string, sourceName: string): LayoutElement[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidResult(sourceName, 'layout archive', [`${LAYOUT_NAME} is not JSON`]);
  }
  if (!Array.isArray(value)) throw invalidResult(sourceName, 'layout archive', [`${LAYOUT_NAME} is not an array`]);
  const issues = value.flatMap((element, i) => elementIssues(element, `${LAYOUT_NAME}[${i}]`));
  if (issues.length > 0) throw invalidResult(sourceName, 'layout archive', issues.slice(0, 10));
  return value as LayoutElement[];
}

function elementIssues(element: unknown, where: string): string[] {
  if (typeof element !== 'object' || element === null || Array.isArray(element)) return [`${where}: not an object`];
  const { type, text, bbox, page } = element as Record<string, unknown>;
  const issues: string[] = [];
  if (typeof type !== 'string') issues.push(`${where}.type: expected a string`);
  if (text !== undefined && typeof text !== 'string') issues.push(`${where}.text: expected a string`);
  if (bbox !== undefined && !(Array.isArray(bbox) && bbox.every((n) => typeof n === 'number'))) {
    issues.push(`${where}.bbox: expected an array of numbers`);
  }
  if (page !== undefined && typeof page !== 'number') issues.push(`${where}.page: expected a number`);
  return issues;
}
