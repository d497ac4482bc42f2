// C0/C1 controls (ESC starts terminal escape sequences) and the bidi overrides that reorder text.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Shows control characters in text from outside (database, upstream) as visible `\uXXXX` escapes. */
export function defuseControls(text: string): string {
  return text.replace(CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
