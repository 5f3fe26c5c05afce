// One keyboard cursor across the tables of a page (j / k / Enter): each table that takes part
// registers here (useRowKeys); the global key layer moves the cursor through them in the order
// they appear on the page, from the last row of one table to the first of the next.

export interface CursorTable {
  /** the table's element, for its place on the page */
  element(): HTMLElement | null;
  rowCount(): number;
  /** shows the cursor on row `index` (undefined: nowhere in this table) */
  show(index: number | undefined): void;
  open(index: number): void;
}

const tables = new Set<CursorTable>();
let current: { table: CursorTable; index: number } | undefined;

export function registerTable(table: CursorTable): () => void {
  tables.add(table);
  return () => {
    tables.delete(table);
    if (current?.table === table) current = undefined;
  };
}

/** the tables with rows, in page order */
function inPageOrder(): CursorTable[] {
  return [...tables]
    .filter((t) => t.element()?.isConnected && t.rowCount() > 0)
    .sort((a, b) => {
      const pos = (a.element() as HTMLElement).compareDocumentPosition(b.element() as HTMLElement);
      return pos & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : pos & Node.DOCUMENT_POSITION_PRECEDING ? 1 : 0;
    });
}

function moveTo(table: CursorTable, index: number): void {
  if (current && current.table !== table) current.table.show(undefined);
  current = { table, index };
  table.show(index);
}

/** moves the cursor one row down (1) or up (-1); false when no table on the page has rows */
export function moveCursor(step: 1 | -1): boolean {
  const list = inPageOrder();
  if (list.length === 0) return false;
  const at = current ? list.indexOf(current.table) : -1;
  if (!current || at < 0) {
    const table = step > 0 ? (list[0] as CursorTable) : (list[list.length - 1] as CursorTable);
    moveTo(table, step > 0 ? 0 : table.rowCount() - 1);
    return true;
  }
  const index = Math.min(current.index, current.table.rowCount() - 1) + step;
  if (index >= 0 && index < current.table.rowCount()) moveTo(current.table, index);
  else if (step > 0 && list[at + 1]) moveTo(list[at + 1] as CursorTable, 0);
  else if (step < 0 && list[at - 1]) {
    const before = list[at - 1] as CursorTable;
    moveTo(before, before.rowCount() - 1);
  }
  return true;
}

/** opens the row under the cursor; false when there is none */
export function openCursor(): boolean {
  if (!current || !current.table.element()?.isConnected) return false;
  const index = Math.min(current.index, current.table.rowCount() - 1);
  if (index < 0) return false;
  current.table.open(index);
  return true;
}

export function clearCursor(): void {
  current?.table.show(undefined);
  current = undefined;
}
