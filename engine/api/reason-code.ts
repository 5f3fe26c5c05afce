// Engine-written text (failure reasons, alert bodies) as a code and its arguments, beside the
// English text the CLI prints: the UI translates the code (renderer/src/shared/reason-text.ts).
export interface ReasonCode {
  /** a stable key, e.g. "timeout", "exit", "upstream_failed", "waiting_upstream" */
  code: string;
  args?: Record<string, string | number>;
}
