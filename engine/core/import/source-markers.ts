// Leaving cron safely: the imported lines of a crontab turned off with a marker, and put back.
// Pure text work on what the host read; every byte outside the marked lines is kept as it was
// (line endings, tabs, a missing last newline), because the text is split and joined on "\n"
// only, the way cron reads it, and a line's own "\r" stays with it.
//
//   disabled:  #ax-imported(backup-home): 0 2 * * * tar czf /backup/home.tgz /home
//   monitored: #ax-wrapped(backup-home): 0 2 * * * tar czf /backup/home.tgz /home
//              0 2 * * * ax wrap backup-home -- /bin/sh -c 'tar czf /backup/home.tgz /home'
//
// A marker is a comment to cron; the original line follows its prefix unchanged, so restoring
// it needs nothing else. A wrapped line has no original in it: the marker above keeps it, and
// restore checks the line below the marker is still the one AX wrote before taking it out.

export interface SourceEdit {
  /** 1-based line, as ImportedJob.line */
  line: number;
  workflow: string;
  /** with --monitor: the line that takes the job's place (ImportedJob.wrappedLine) */
  wrappedLine?: string;
}

export interface RestoredLine {
  line: number;
  workflow: string;
  text: string;
}

const MARKER = /^#ax-(imported|wrapped)\(([^()\s]+)\): /;

const lineText = (raw: string): string => (raw.endsWith('\r') ? raw.slice(0, -1) : raw);

/** The source with each edited line commented out (or, with a wrapped line, replaced by it). */
export function disableLines(text: string, edits: readonly SourceEdit[]): string {
  const lines = text.split('\n');
  const byLine = new Map(edits.map((e) => [e.line, e]));
  for (const e of edits) {
    const raw = lines[e.line - 1];
    if (raw === undefined) throw new Error(`line ${e.line} is not in the source (it has ${lines.length})`);
    if (MARKER.test(raw)) throw new Error(`line ${e.line} is already marked by AX`);
  }
  return lines
    .map((raw, i) => {
      const e = byLine.get(i + 1);
      if (!e) return raw;
      if (e.wrappedLine === undefined) return `#ax-imported(${e.workflow}): ${raw}`;
      const cr = raw.endsWith('\r') ? '\r' : '';
      return `#ax-wrapped(${e.workflow}): ${raw}\n${lineText(e.wrappedLine)}${cr}`;
    })
    .join('\n');
}

/** A line AX marked off (a comment to cron, and no job's description either). */
export const isMarkerLine = (raw: string): boolean => MARKER.test(raw);

/** What a marker line holds: its kind, the workflow the job went to, and the job's line as it was. */
export function markedLine(
  raw: string,
): { kind: 'imported' | 'wrapped'; workflow: string; original: string } | undefined {
  const m = MARKER.exec(raw);
  if (!m) return undefined;
  return { kind: m[1] as 'imported' | 'wrapped', workflow: m[2] as string, original: raw.slice(m[0].length) };
}

/** Whether a source has lines AX marked. */
export function hasMarkers(text: string): boolean {
  return text.split('\n').some((raw) => MARKER.test(raw));
}

/**
 * The source with every marked line put back: the text, the lines restored, and why it cannot
 * be done safely (a wrapped line changed, a job that is active again elsewhere): with any
 * problem, nothing is to be written. `wrapped`: each workflow's wrapped line as AX wrote it.
 */
export function restoreLines(
  text: string,
  wrapped: Readonly<Record<string, string>>,
): { text: string; restored: RestoredLine[]; problems: string[] } {
  const lines = text.split('\n');
  const out: string[] = [];
  const restored: RestoredLine[] = [];
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const m = MARKER.exec(raw);
    if (!m) {
      out.push(raw);
      continue;
    }
    const [prefix, kind, workflow] = m as unknown as [string, string, string];
    const original = raw.slice(prefix.length);
    const line = i + 1;
    if (kind === 'wrapped') {
      const below = lines[i + 1];
      const expected = wrapped[workflow];
      if (expected === undefined)
        problems.push(
          `line ${i + 1}: AX has no record of the ax wrap line it wrote for ${workflow}: put the line back by hand (the backup has it)`,
        );
      else if (below === undefined || lineText(below) !== lineText(expected))
        problems.push(
          `line ${i + 2}: the ax wrap line of ${workflow} below the marker was changed or removed since AX wrote it: put the original back by hand (it is on line ${i + 1} after the marker)`,
        );
      else i++; // the wrapped line goes; the original takes its place
    }
    restored.push({ line, workflow, text: lineText(original) });
    out.push(original);
  }
  const active = new Map<string, number>();
  lines.forEach((raw, i) => {
    const t = lineText(raw).trim();
    if (t !== '' && !t.startsWith('#')) active.set(t, active.get(t) ?? i + 1);
  });
  for (const r of restored) {
    const again = active.get(r.text.trim());
    if (again !== undefined)
      problems.push(
        `the job of ${r.workflow} is active again at line ${again}: restoring its marked line would run it twice; remove one of them first`,
      );
  }
  return { text: out.join('\n'), restored, problems };
}
