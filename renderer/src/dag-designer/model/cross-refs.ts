// Upstreams in other workflows as the designer edits them: one tag per reference.
// A typed tag is `WORKFLOW.TASK` or `WORKFLOW.*` with the default date rule (same day), split at
// the last dot as the engine does; other date rules come from YAML and are kept as they are.
import type { CrossUpstream, UpstreamDate } from '../../../../engine/api/types.ts';

export const refText = (u: Pick<CrossUpstream, 'workflow' | 'task'>): string => `${u.workflow}.${u.task ?? '*'}`;

/** A tag's value: the reference and its date rule, so two rules on one upstream stay two tags. */
export const crossKey = (u: CrossUpstream): string => `${refText(u)}|${u.date}`;

/** A typed reference, or undefined when it is not WORKFLOW.TASK / WORKFLOW.* */
export function parseRef(text: string): CrossUpstream | undefined {
  const s = text.trim();
  const dot = s.lastIndexOf('.');
  if (dot <= 0 || dot === s.length - 1) return undefined;
  const task = s.slice(dot + 1);
  return { workflow: s.slice(0, dot), ...(task !== '*' && { task }), date: 'same_day' };
}

/** The references a changed tag list stands for: kept ones as they were, typed ones parsed (same day). */
export function crossFromKeys(current: readonly CrossUpstream[], keys: readonly string[]): CrossUpstream[] {
  const byKey = new Map(current.map((u) => [crossKey(u), u]));
  const out: CrossUpstream[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const u = byKey.get(key) ?? parseRef(key);
    if (!u || seen.has(crossKey(u))) continue;
    seen.add(crossKey(u));
    out.push(u);
  }
  return out;
}

export const isDefaultDate = (date: UpstreamDate): boolean => date === 'same_day';
