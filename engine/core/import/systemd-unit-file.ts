// systemd unit file syntax (systemd.syntax(7)) and the value syntaxes the importer reads: sections,
// comments (`#`, `;`), a trailing backslash continuing the line (comment lines inside are dropped),
// repeated keys (a list, an empty assignment resets it); the words of a command line and of
// Environment= (quotes and C escapes), an EnvironmentFile's assignments, time spans ("1h 30min").

export interface UnitEntry {
  section: string;
  key: string;
  value: string;
  /** 1-based line of the entry's first line */
  line: number;
  /** the entry as written (its lines joined) */
  text: string;
}

export interface UnitFile {
  entries: UnitEntry[];
  /** lines that are not a section, an assignment or a comment (systemd ignores them with a warning) */
  bad: { line: number; text: string }[];
}

const isComment = (line: string): boolean => /^\s*[#;]/.test(line);

export function parseUnitFile(text: string): UnitFile {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: UnitFile = { entries: [], bad: [] };
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    const raw = lines[i] as string;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const shown = [raw];
    let joined = raw;
    while (joined.endsWith('\\') && i + 1 < lines.length) {
      joined = `${joined.slice(0, -1)} `;
      // comment lines inside a continued line are dropped, and the line goes on after them
      let next: string;
      do {
        i++;
        next = lines[i] as string;
        shown.push(next);
      } while (isComment(next) && i + 1 < lines.length);
      if (isComment(next)) break;
      joined += next;
    }
    const entryText = shown.join('\n');
    const line = joined.trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || section === '') {
      out.bad.push({ line: first, text: entryText });
      continue;
    }
    out.entries.push({
      section,
      key: line.slice(0, eq).trim(),
      value: line.slice(eq + 1).trim(),
      line: first,
      text: entryText,
    });
  }
  return out;
}

/** The entries of a key in a section, as a list: an empty assignment drops those before it. */
export function listOf(unit: UnitFile, section: string, key: string): UnitEntry[] {
  let out: UnitEntry[] = [];
  for (const e of unit.entries) {
    if (e.section !== section || e.key !== key) continue;
    if (e.value === '') out = [];
    else out.push(e);
  }
  return out;
}

/** The last entry of a key in a section (a later assignment wins). */
export function lastOf(unit: UnitFile, section: string, key: string): UnitEntry | undefined {
  return listOf(unit, section, key).at(-1);
}

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
  s: ' ',
};

/**
 * Splits a value into words as systemd does for command lines and Environment=: whitespace
 * separates, "…" and '…' quote, C escapes (\n, \t, \\, \", \xHH) are decoded. A string is the problem.
 */
export function splitWords(value: string): string[] | string {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /\s/.test(value[i] as string)) i++;
    if (i >= value.length) break;
    let word = '';
    let quote: string | undefined;
    for (; i < value.length; i++) {
      const c = value[i] as string;
      if (quote === undefined && /\s/.test(c)) break;
      if (c === '\\') {
        const n = value[i + 1];
        if (n === undefined) return 'a backslash ends the line';
        if (n === 'x' && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 2, i + 4))) {
          word += String.fromCharCode(parseInt(value.slice(i + 2, i + 4), 16));
          i += 3;
        } else if (ESCAPES[n] !== undefined) {
          word += ESCAPES[n];
          i++;
        } else return `"\\${n}" is an escape the importer does not know: write the character itself`;
      } else if (quote !== undefined && c === quote) quote = undefined;
      else if (quote === undefined && (c === '"' || c === "'")) quote = c;
      else word += c;
    }
    if (quote !== undefined) return `a ${quote} is not closed`;
    words.push(word);
  }
  return words;
}

/**
 * An EnvironmentFile's assignments: KEY=VALUE lines, `#`/`;` comments, values in "…" (with \
 * escapes) or '…', unquoted ones trimmed, a trailing backslash continuing the line.
 */
export function parseEnvironmentFile(text: string): { env: [string, string][]; bad: number[] } {
  const env: [string, string][] = [];
  const bad: number[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let line = lines[i] as string;
    while (line.endsWith('\\') && i + 1 < lines.length && !/["']/.test(line))
      line = line.slice(0, -1) + (lines[++i] as string);
    const t = line.trim();
    if (t === '' || t.startsWith('#') || t.startsWith(';')) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(t);
    if (!m) {
      bad.push(first);
      continue;
    }
    const [, key, rawValue] = m as unknown as [string, string, string];
    let value = rawValue;
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\(["\\`$])/g, '$1').replace(/\\\n/g, '');
    } else value = value.replace(/\\(.)/g, '$1').trimEnd();
    env.push([key, value]);
  }
  return { env, bad };
}

const SPAN_UNITS: Record<string, number> = {
  us: 0.001,
  usec: 0.001,
  ms: 1,
  msec: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/** A time span (systemd.time(7)): "90", "5min", "1h 30min", "infinity"; undefined when not one. */
export function parseTimespan(text: string): number | undefined {
  const t = text.trim();
  if (t === 'infinity') return Infinity;
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const spaced = t.replace(/\s+/g, ' ');
  let total = 0;
  let at = 0;
  for (const m of spaced.matchAll(/\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy)) {
    const unit = SPAN_UNITS[m[2] as string];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
    at += m[0].length;
  }
  return at > 0 && at === spaced.length ? total : undefined;
}
