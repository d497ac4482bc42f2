/**
 * What the page draws, as plain data: the sections are built from a snapshot by pure functions
 * (unit-tested without a browser) and only dom.ts turns them into nodes. A string is a text node
 * and an attribute is set as a value: no markup is ever parsed, whatever the server sent.
 */
export type View = string | ViewElement;

export interface ViewElement {
  readonly tag: string;
  /** Created in the SVG namespace (the charts). */
  readonly svg: boolean;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly View[];
}

type Attrs = Readonly<Record<string, string | number>>;

/** An HTML element; a number child or attribute is shown as its text. */
export function h(tag: string, attrs: Attrs = {}, children: readonly (View | number)[] = []): ViewElement {
  return element(tag, false, attrs, children);
}

/** An SVG element. */
export function svg(tag: string, attrs: Attrs = {}, children: readonly ViewElement[] = []): ViewElement {
  return element(tag, true, attrs, children);
}

function element(tag: string, isSvg: boolean, attrs: Attrs, children: readonly (View | number)[]): ViewElement {
  return {
    tag,
    svg: isSvg,
    attrs: Object.fromEntries(Object.entries(attrs).map(([name, value]) => [name, String(value)])),
    children: children.map((child) => (typeof child === 'number' ? String(child) : child)),
  };
}
