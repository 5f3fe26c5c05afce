// What the search methods answer: definitions matching a query, a task log's extent, and lines
// of a log matching a query (with where a search cut short stopped).

export interface SearchHit {
  workflow: string;
  task: string;
  command: string;
  /** where the query matched */
  field: 'workflow' | 'task' | 'command';
}

export interface LogInfo {
  instanceId: number;
  /** first and last stored seq; 0/0 when the instance has no lines */
  firstSeq: number;
  lastSeq: number;
  /** the size of the seq range (lastSeq − firstSeq + 1): lines dropped in an outage leave gaps */
  lines: number;
}

export interface LogSearchHit {
  seq: number;
  stream: string;
  line: string;
  /**
   * Set on the last element only when the search ran out of its time budget: not a hit, but
   * where it stopped (`seq`: the last line searched; ask again with afterSeq = seq to go on) and
   * `line` says so ("partial results…: narrow your search").
   */
  cut?: true;
}
