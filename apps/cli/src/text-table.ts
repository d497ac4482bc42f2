/** Plain-text tables for the terminal. Cell text is made safe: no control characters reach the tty. */
import { defuseControls } from './defuse-controls.js';

export interface Column {
  header: string;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

export function renderTable(columns: readonly Column[], rows: ReadonlyArray<readonly string[]>, indent = '  '): string {
  const cells = [columns.map((c) => c.header), ...rows.map((row) => row.map(defuseControls))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => [...(row[i] ?? '')].length)));
  const line = (row: readonly string[]) =>
    indent +
    columns
      .map((column, i) => {
        const cell = row[i] ?? '';
        const pad = ' '.repeat(widths[i]! - [...cell].length);
        return column.align === 'right' ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), indent + widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
