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

/** Replaces what the element of that id shows. */
export function fill(id: string, views: readonly View[]): void {
  byId(id).replaceChildren(...views.map(toNode));
}
