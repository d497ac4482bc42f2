/** Word tokens with their surrounding whitespace, so joining them gives back the text. */
export function splitTokens(text: string): string[] {
  const tokens = text.match(/\s*\S+\s*/g);
  if (tokens) return tokens;
  return text.length > 0 ? [text] : [];
}

export function countTokens(text: string): number {
  return splitTokens(text).length;
}
