/** Views made into DOM nodes: text as text nodes, attributes set one by one, nothing parsed as markup. */
import type { View } from './view.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

export function toNode(view: View): Node {
  if (typeof view === 'string') return document.createTextNode(view);
  const node = view.svg ? document.createElementNS(SVG_NS, view.tag) : document.createElement(view.tag);
  for (const [name, value] of Object.entries(view.attrs)) node.setAttribute(name, value);
  node.append(...view.children.map(toNode));
  return node;
}

/** The page's element of that id (the page's fixed markup has each one the script fills). */
export function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the console page has no #${id}`);
  return node;
}

/**
 * Replaces what the element of that id shows. A control focused inside it (one with a
 * `data-focus-id`) is focused again in the new content, so a redraw every second does not take
 * the keyboard's place away.
 */
export function fill(id: string, views: readonly View[]): void {
  const target = byId(id);
  const focused = document.activeElement;
  const focusId = focused !== null && target.contains(focused) ? focused.getAttribute('data-focus-id') : null;
  target.replaceChildren(...views.map(toNode));
  if (focusId !== null) target.querySelector<HTMLElement>(`[data-focus-id="${CSS.escape(focusId)}"]`)?.focus();
}
