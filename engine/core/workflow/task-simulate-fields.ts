// A task's `simulate:` in a workflow file: what a simulated worker (`ax serve --simulate N`, a
// capacity-planning tool) does instead of running the command: last `duration` (± `jitter`),
// write `lines` log lines, exit 1 for a `fail_rate` share of its runs. A real worker ignores it.
// Read here with the task's other fields, written back by workflow-serialize.ts; the API's zod
// schema (api/schemas.ts) checks the same ranges (MAX_SIMULATED_LINES in api/types.ts).
import { MAX_SIMULATED_LINES, type TaskSimulation } from '../../api/types.ts';
import { formatDuration } from '../model/duration.ts';
import { join, type Reader, typeName, type YMap } from './workflow-reader.ts';

/** What a task without `simulate:` does on a simulated worker, and what a key left out means. */
export const SIMULATION_DEFAULTS: TaskSimulation = { durationMs: 1_000, jitter: 0.5, lines: 5, failRate: 0 };

const KEYS = ['duration', 'jitter', 'lines', 'fail_rate'];
const EXAMPLE = 'simulate: { duration: 2s, jitter: 50%, lines: 20, fail_rate: 0.01 }';

/** `simulate:` of one task, defaults filled in; its problems go to the reader. */
export function readSimulate(r: Reader, v: unknown, path: string): TaskSimulation | undefined {
  const at = join(path, 'simulate');
  // `simulate: {}` (or a bare `simulate:`) asks for the defaults
  if (v === null || v === undefined) return { ...SIMULATION_DEFAULTS };
  const m = r.map(v, at, `a map such as ${EXAMPLE}`);
  if (!m) return undefined;
  r.keys(m, KEYS, at);
  const sim = { ...SIMULATION_DEFAULTS };
  if (m.has('duration')) {
    const ms = r.duration(m.get('duration'), join(at, 'duration'));
    if (ms !== undefined) sim.durationMs = ms;
  }
  const jitter = share(r, m, 'jitter', at, '50% (or 0.5): the duration varies by up to half either way');
  if (jitter !== undefined) sim.jitter = jitter;
  const failRate = share(r, m, 'fail_rate', at, '1% (or 0.01): one run in a hundred exits 1');
  if (failRate !== undefined) sim.failRate = failRate;
  if (m.has('lines')) {
    const lines = m.get('lines');
    if (typeof lines === 'number' && Number.isInteger(lines) && lines >= 0 && lines <= MAX_SIMULATED_LINES)
      sim.lines = lines;
    else
      r.add(
        join(at, 'lines'),
        `must be a whole number from 0 to ${MAX_SIMULATED_LINES} (got ${typeof lines === 'number' ? lines : typeName(lines)}): the log lines each run writes`,
      );
  }
  return sim;
}

/** A share from 0 to 1, written as a fraction (0.5) or a percentage ("50%"). */
function share(r: Reader, m: YMap, key: string, at: string, example: string): number | undefined {
  if (!m.has(key)) return undefined;
  const v = m.get(key);
  const percent = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(v) : null;
  const value = percent ? Number(percent[1]) / 100 : typeof v === 'number' ? v : NaN;
  if (value >= 0 && value <= 1) return value;
  r.add(
    join(at, key),
    `must be a share from 0 to 1 or 0% to 100% (got ${typeof v === 'string' ? `"${v}"` : typeName(v)}), e.g. ${example}`,
  );
  return undefined;
}

/** The map workflow-serialize.ts writes: every key, so what the file says is what runs. */
export function writeSimulate(s: TaskSimulation): Map<string, unknown> {
  return new Map<string, unknown>([
    ['duration', formatDuration(s.durationMs)],
    ['jitter', percentOrFraction(s.jitter)],
    ['lines', s.lines],
    ['fail_rate', s.failRate],
  ]);
}

/** "50%" when it reads back as exactly the same number, else the fraction itself. */
function percentOrFraction(x: number): string | number {
  const text = `${Number((x * 100).toFixed(6))}%`;
  return Number(text.slice(0, -1)) / 100 === x ? text : x;
}
