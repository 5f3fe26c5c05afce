// Secret values out of every text that leaves the engine: task log lines, the engine's
// own lines, instance reasons, alerts and their deliveries' errors, audit entries, API errors.
// Every occurrence becomes ***. A value spanning lines is masked line by line too, since a log is
// split into lines before it gets here; a value holding a NUL is masked by its NUL-free parts
// (such a value is refused where it is set, but a file edited by hand may still hold one).
//
// SecretMask is the node's one masking step: it learns every value the node resolves (a task's
// secrets, an alert channel's URL or password) through `watch`, so a text is masked against all
// of them, whoever quotes it. URLs' userinfo (`//user:password@`) is masked too, whatever it holds.
import { MASK_MIN_LENGTH } from '../../api/secrets.ts';
import type { LineMask } from '../../ports/process-runner.ts';
import type { SecretSource } from '../../ports/secrets.ts';

export const MASK = '***';

const encoder = new TextEncoder();
/** `scheme://user:password@` or `scheme://token@`: what a URL carries before its host */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/** The parts of a value that are masked: itself and its lines, NUL-free, long enough to matter. */
function partsOf(values: Iterable<string>): string[] {
  const parts = new Set<string>();
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n|\0/)]) if (part.length >= MASK_MIN_LENGTH) parts.add(part);
  }
  // Longest first, so a value containing another is masked whole.
  return [...parts].sort((a, b) => b.length - a.length);
}

/** A masker for these values; the identity when there is nothing to mask. */
export function secretMasker(values: string[]): (line: string) => string {
  const sorted = partsOf(values);
  if (sorted.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const part of sorted) if (out.includes(part)) out = out.split(part).join(MASK);
    return out;
  };
}

/** A LineMask (what a line splitter masks before its cut) for these values (none: undefined, so the splitter keeps its fast path). */
export function lineMask(values: string[]): LineMask | undefined {
  const sorted = partsOf(values);
  if (sorted.length === 0) return undefined;
  const mask = secretMasker(values);
  return {
    mask,
    slackBytes: Math.max(...sorted.map((p) => encoder.encode(p).length)) - 1,
    maskPrefix(text, cut) {
      // Ranges of every occurrence, longest values first, none overlapping one already taken.
      const taken: [number, number][] = [];
      for (const part of sorted) {
        for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) {
          const end = at + part.length;
          if (at < cut && !taken.some(([s, e]) => at < e && end > s)) taken.push([at, end]);
        }
      }
      if (taken.length === 0) return text.slice(0, cut);
      taken.sort((a, b) => a[0] - b[0]);
      let out = '';
      let pos = 0;
      for (const [s, e] of taken) {
        if (s < pos) continue;
        out += text.slice(pos, s) + MASK;
        pos = e;
      }
      return pos < cut ? out + text.slice(pos, cut) : out;
    },
  };
}

/** Userinfo of every URL in a text masked: `https://user:pw@host/` → `https://***@host/`. */
export function maskUserinfo(text: string): string {
  return text.includes('@') ? text.replace(USERINFO, `$1${MASK}@`) : text;
}

/** The password of a connection string (`mysql://user:pw@host`), decoded; none when it has none. */
export function urlPassword(url: string): string[] {
  try {
    const pw = new URL(url).password;
    return pw ? [decodeURIComponent(pw), pw] : [];
  } catch {
    return [];
  }
}

/** The node's masking step: every secret value it has resolved, and URLs' userinfo. */
export class SecretMask {
  private readonly values = new Set<string>();
  private masker: (text: string) => string = (text) => text;
  private lines: LineMask | undefined;

  /** Values to mask from now on (a value already known costs nothing). */
  add(values: Iterable<string>): void {
    let added = false;
    for (const v of values) {
      if (v.length < MASK_MIN_LENGTH || this.values.has(v)) continue;
      this.values.add(v);
      added = true;
    }
    if (!added) return;
    const all = [...this.values];
    this.masker = secretMasker(all);
    this.lines = lineMask(all);
  }

  /** A text fit to leave the engine. */
  mask(text: string): string {
    return maskUserinfo(this.masker(text));
  }

  /** For a task's log lines: every value known when it starts (its own ones included, once added). */
  lineMask(): LineMask | undefined {
    return this.lines;
  }

  /** The source, with every value it gives learnt first: whatever later quotes it is masked. */
  watch(source: SecretSource): SecretSource {
    return {
      get: (name) => {
        const value = source.get(name);
        if (value !== undefined) this.add([value]);
        return value;
      },
      howToSet: (name) => source.howToSet(name),
      ...(source.unavailable && { unavailable: (name: string) => source.unavailable?.(name) }),
    };
  }
}
