/** Shortens text to `max` characters (code points, whitespace runs folded) with a trailing `…`. */
export function shorten(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ')];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}
