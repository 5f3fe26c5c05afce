// A workflow file's YAML tree as plain values, and the typed reads of its fields (a map, a
// name, a string, a choice, a duration, a list): each problem is collected with its field path
// and a message that says the fix, so that a file's every problem is reported at once. Aliases
// are followed within limits (depth, expansion), so that a hostile file can neither loop nor
// blow up.
import { type Document, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { ValidationProblem } from '../../api/errors.ts';
import { closest } from '../model/did-you-mean.ts';
import { parseDuration } from '../model/duration.ts';

export const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const MAX_DEPTH = 64; // a workflow file nests 4 levels; deeper means an alias loop or a mistake
const MAX_ALIASED = 10_000; // values copied through aliases; stops "billion laughs" expansion

export type YMap = Map<string, unknown>;
export const join = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (v instanceof Map) return 'a map';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

const NUL_HINT = 'contains a NUL character (\\0), which no command, path or variable can hold: remove it';

export const nameHint = (v: string): string =>
  `"${v}" is not a valid name: use letters, digits, "_", "." or "-", starting with a letter or digit (at most 100 characters)`;

/** Collects problems while turning the YAML tree into plain values. */
export class Reader {
  readonly problems: ValidationProblem[] = [];
  /** source text of number/boolean scalars by path, so env "1.10" is not turned into "1.1" */
  readonly scalarText = new Map<string, string>();
  private aliased = 0;

  constructor(
    private readonly file: string | undefined,
    private readonly doc: Document,
  ) {}

  add(path: string, message: string): void {
    this.problems.push(this.file === undefined ? { path, message } : { file: this.file, path, message });
  }

  /** Maps become Map (keeps file order, even for keys like "2"); duplicate keys are reported. */
  plain(node: unknown, path: string, depth = 0, viaAlias = false): unknown {
    if (depth > MAX_DEPTH) {
      this.add(path, 'nested too deeply (is an alias referring to itself?)');
      return undefined;
    }
    if (viaAlias && ++this.aliased > MAX_ALIASED) {
      if (this.aliased === MAX_ALIASED + 1)
        this.add(path, `aliases expand to more than ${MAX_ALIASED} values: write them out`);
      return undefined;
    }
    if (isAlias(node)) return this.plain(node.resolve(this.doc), path, depth + 1, true);
    if (isScalar(node)) {
      if (typeof node.value === 'string' && node.value.includes('\0')) this.add(path, NUL_HINT);
      if (typeof node.value !== 'string' && node.source !== undefined) this.scalarText.set(path, node.source);
      return node.value;
    }
    if (isSeq(node)) return node.items.map((item, i) => this.plain(item, `${path}[${i}]`, depth + 1, viaAlias));
    if (!isMap(node)) return null;
    const out: YMap = new Map();
    for (const pair of node.items) {
      const k = pair.key;
      if (!isScalar(k) || k.value === null || typeof k.value === 'object') {
        this.add(path, 'every key must be a plain name');
        continue;
      }
      const key = typeof k.value === 'string' ? k.value : (k.source ?? String(k.value));
      const at = join(path, key);
      if (key.includes('\0')) {
        this.add(join(path, key.replaceAll('\0', '\\0')), `key ${NUL_HINT}`);
        continue;
      }
      if (out.has(key)) {
        const what =
          path === 'tasks' ? `task "${key}": task names must be unique` : `key "${key}": write each key once`;
        this.add(at, `duplicate ${what}`);
        continue;
      }
      out.set(key, this.plain(pair.value, at, depth + 1, viaAlias));
    }
    return out;
  }

  map(v: unknown, path: string, what: string): YMap | undefined {
    if (v instanceof Map) return v as YMap;
    this.add(path, `must be ${what} (got ${typeName(v)})`);
    return undefined;
  }

  keys(m: YMap, allowed: readonly string[], path: string): void {
    for (const key of m.keys()) {
      if (allowed.includes(key)) continue;
      const guess = closest(key, allowed);
      const hint = guess ? `did you mean '${guess}'?` : `allowed keys are ${allowed.join(', ')}`;
      this.add(join(path, key), `unknown key "${key}": ${hint}`);
    }
  }

  /** An optional string; an empty one counts as absent. */
  text(m: YMap, key: string, path: string): string | undefined {
    const v = m.get(key);
    if (v === undefined || v === '') return undefined;
    if (typeof v === 'string') return v;
    this.add(join(path, key), `must be a string (got ${typeName(v)}): put the value in quotes`);
    return undefined;
  }

  name(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string') this.add(path, `must be a name in quotes, e.g. "nightly-etl" (got ${typeName(v)})`);
    else if (!NAME.test(v)) this.add(path, nameHint(v));
    else return v;
    return undefined;
  }

  choice<T extends string>(m: YMap, key: string, path: string, allowed: readonly T[], fallback: T): T {
    const v = m.get(key);
    if (v === undefined) return fallback;
    if (allowed.includes(v as T)) return v as T;
    this.add(
      join(path, key),
      `must be one of ${allowed.join(', ')} (got ${typeof v === 'string' ? `"${v}"` : typeName(v)})`,
    );
    return fallback;
  }

  duration(v: unknown, path: string): number | undefined {
    if (typeof v !== 'string' && typeof v !== 'number') {
      this.add(path, `must be a duration such as "30m" (got ${typeName(v)})`);
      return undefined;
    }
    const d = parseDuration(String(v));
    if ('ms' in d) return d.ms;
    this.add(path, d.error);
    return undefined;
  }

  list(m: YMap, key: string, path: string, what: string, example: string): string[] {
    const v = m.get(key);
    const at = join(path, key);
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      this.add(at, `must be a list of ${what}, e.g. [${example}] (got ${typeName(v)})`);
      return [];
    }
    const bad = v.find((x) => typeof x !== 'string' || x === '');
    if (bad !== undefined) {
      this.add(
        at,
        `must be a list of ${what}, e.g. [${example}] (got an item that is ${bad === '' ? 'empty' : typeName(bad)})`,
      );
      return [];
    }
    const out = new Set<string>();
    for (const item of v as string[]) {
      if (out.has(item)) this.add(at, `"${item}" is listed twice: list it once`);
      else out.add(item);
    }
    return [...out];
  }
}
