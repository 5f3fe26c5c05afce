import type { TablePaginationConfig } from 'antd';

/** A table's pager, only once the rows fill more than one page (a short list shows no pager). */
export function pagerPast(rows: number, pageSize: number): TablePaginationConfig | false {
  return rows > pageSize ? { pageSize, showSizeChanger: false } : false;
}
