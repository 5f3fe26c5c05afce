// Logs: the lines of each instance's output.
import type { LogLine } from '../api/types.ts';

/** Each instance's log lines, by seq. */
export interface LogStore {
  appendLogs(lines: LogLine[]): Promise<void>;
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]>;
  /** deletes log lines older than `before`; returns how many */
  purgeLogs(before: number): Promise<number>;
  /** the extent of an instance's log: first and last seq (0 when empty) and the line count */
  logExtent(instanceId: number): Promise<{ firstSeq: number; lastSeq: number; lines: number }>;
  /** lines after afterSeq containing query (case-insensitive, literal), in seq order */
  /** `untilSeq`: only lines up to this seq (a window of a long log, see views.searchLog) */
  searchLog(instanceId: number, query: string, afterSeq: number, limit: number, untilSeq?: number): Promise<LogLine[]>;
}
