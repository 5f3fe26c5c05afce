// An alert's keys. The group key is rule + subject + time bucket: a group's first
// alert is sent at once, the others in its bucket are counted and told in one summary at the
// bucket's end. The alert key adds what the alert is about (an instance, a run, a worker's
// heartbeat), so the same event raised by two nodes is recorded, and sent, once; an alert with
// nothing of its own (a long queue) has its group's key, so it goes out once per bucket.

/** Keys are stored in an indexed column of at most 191 characters. */
const MAX_KEY = 191;

export interface AlertKeys {
  key: string;
  groupKey: string;
  /** the end of the group's bucket: when its summary is due */
  groupEndsAt: number;
}

export function alertKeys(rule: string, subject: string, at: number, windowMs: number, event?: string): AlertKeys {
  const bucket = Math.floor(at / windowMs) * windowMs;
  const groupKey = fit(`${rule}|${subject}|${bucket}`);
  return {
    groupKey,
    key: event === undefined ? groupKey : fit(`${rule}|${subject}|${event}`),
    groupEndsAt: bucket + windowMs,
  };
}

/** A long key keeps its head and gets a hash of the whole: still unique, still readable. */
export function fit(key: string): string {
  if (key.length <= MAX_KEY) return key;
  return `${key.slice(0, MAX_KEY - 18)}#${fnv1a(key)}`;
}

/** 64-bit FNV-1a as 16 hex digits (BigInt: no node:crypto in core). */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const ch of text) {
    h ^= BigInt(ch.codePointAt(0) as number);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** The key of a group's summary: one per group, whichever node sends it. */
export function summaryKey(openerKey: string): string {
  return fit(`${openerKey}|summary`);
}
