/** Building HTML/SVG markup as strings: every text and attribute value passes through `escapeMarkup`. */
import { defuseControls } from '../defuse-controls.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes markup characters; control characters become visible `\uXXXX` escapes. */
export function escapeMarkup(text: string): string {
  return defuseControls(text).replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

export type Attributes = Record<string, string | number | undefined>;

/** `<name attrs>children</name>`; children are markup already (use `text()` for raw strings). */
export function element(name: string, attributes: Attributes, ...children: string[]): string {
  const attrs = Object.entries(attributes)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}="${escapeMarkup(typeof value === 'number' ? round(value) : value!)}"`)
    .join('');
  return `<${name}${attrs}>${children.join('')}</${name}>`;
}

export const text = escapeMarkup;

/** Coordinates with two decimals keep the SVG small. */
function round(value: number): string {
  return String(Math.round(value * 100) / 100);
}
