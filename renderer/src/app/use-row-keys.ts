// j / k / Enter on a table (row-cursor.ts): spread `tableProps` on an antd Table and the rows get
// a keyboard cursor, kept in view, that Enter opens. Keys come from the global layer (GlobalKeys).
//   const keys = useRowKeys(rows, (run) => navigate(`/runs/${run.id}`));
//   <div ref={keys.ref}><Table … {...keys.tableProps} /></div>
import type { TableProps } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { registerTable } from './row-cursor.ts';

export const CURSOR_CLASS = 'ax-row-cursor';

export function useRowKeys<T>(rows: readonly T[], open: (row: T) => void) {
  const ref = useRef<HTMLDivElement>(null);
  const [index, setIndex] = useState<number | undefined>(undefined);
  const latest = useRef({ rows, open });
  useEffect(() => {
    latest.current = { rows, open };
  });
  useEffect(
    () =>
      registerTable({
        element: () => ref.current,
        rowCount: () => latest.current.rows.length,
        show: setIndex,
        open: (i) => {
          const row = latest.current.rows[i];
          if (row !== undefined) latest.current.open(row);
        },
      }),
    [],
  );
  useEffect(() => {
    if (index === undefined) return;
    const row = ref.current?.querySelectorAll('.ant-table-tbody > tr.ant-table-row')[index];
    // scrollIntoView is missing under jsdom
    row?.scrollIntoView?.({ block: 'nearest' });
  }, [index]);
  const rowClassName = useCallback((_row: T, i: number) => (i === index ? CURSOR_CLASS : ''), [index]);
  const tableProps: Pick<TableProps<T>, 'rowClassName'> = { rowClassName };
  return { ref, index, tableProps };
}
