// ax logs: a task's output by instance id, or by run and task name (the names `ax runs` shows),
// or a run's failed task; printed once, or followed until the task ends.
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import type { EngineApi } from '../../api/engine-api.ts';
import type { InstanceRecord, LogLine } from '../../api/types.ts';
import { readEngineLock } from '../node/data-dir.ts';
import { cliDataDir, type GlobalOptions, modeOf, withApi } from './connect.ts';
import { follow } from './follow.ts';
import { isoTime } from './format.ts';
import { intArg } from './int-arg.ts';
import { outputLines } from './outputs-text.ts';

type Globals = () => GlobalOptions & { json?: boolean };

interface LogsOptions {
  follow?: boolean;
  timestamps?: boolean;
  attempt?: number;
  run?: number;
}

const ACTIVE = ['WAITING', 'DISPATCHED', 'RUNNING'];
const RETRIED = ['FAILED', 'TIMEOUT'];
const USAGE =
  'write "ax logs RUN TASK" (e.g. "ax logs 42 clean"), "ax logs --run RUN" for the task that failed in a run, or "ax logs INSTANCE"; "ax runs" shows the ids';

export function logsCommand(program: Command, globals: Globals): void {
  program
    .command('logs')
    .argument('[id]', 'a task instance id; with TASK, a run id')
    .argument('[task]', 'a task of the run')
    .option('--run <run>', "the run's failed task (or, with TASK, that task)", intArg('--run', 1))
    .option('--attempt <n>', 'with a run and task: this attempt instead of the latest', intArg('--attempt', 1))
    .option('-f, --follow', 'keep printing new lines until the task ends (with a run and task: and its retries)')
    .option('--timestamps', 'start each line with its time (ISO 8601, with the offset from UTC)')
    .description("print a task's output (stderr lines go to stderr)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax logs 42 clean            # task clean of run #42, latest attempt\n  $ ax logs 42 clean --attempt 1\n  $ ax logs --run 42            # the task that failed in run #42\n  $ ax logs 1234 --follow --timestamps   # task instance 1234',
    )
    .action(async (id: string | undefined, task: string | undefined, opts: LogsOptions) => {
      const g = globals();
      const target = parseTarget(id, task, opts);
      await withApi(g, async (api, remote) => {
        let inst = await resolve(api, target);
        const print = printer(g.json === true, opts.timestamps === true);
        for (;;) {
          const stalled = opts.follow === true && !remote && nothingRuns(g, inst);
          await printLog(api, inst, print, opts.follow === true && !stalled);
          if (stalled) {
            // No server and no `ax run` holds the data dir: following would wait forever.
            throw new AxError(
              'unavailable',
              `task "${inst.taskName}" of run #${inst.runId} is ${inst.state}, but no engine runs this data dir (an "ax run" may have been killed): "ax serve" recovers and finishes it, "ax cancel ${inst.runId}" ends the run`,
            );
          }
          // Following a task by name goes on with its next attempt, as `ax run --wait` does.
          const next =
            opts.follow && target.kind === 'task' && target.attempt === undefined
              ? (await api.getRun(inst.runId)).instances.find(
                  (i) => i.taskId === inst.taskId && i.attempt === inst.attempt + 1,
                )
              : undefined;
          if (!next) {
            // What it wrote to $AX_OUTPUT, after its log (on stderr, as the engine's own lines).
            if (!g.json) for (const line of outputsAfterLog(await api.getInstance(inst.id))) process.stderr.write(line);
            return;
          }
          inst = next;
        }
      });
    });
}

type Target =
  | { kind: 'instance'; id: number }
  | { kind: 'task'; run: number; task: string; attempt?: number }
  | { kind: 'run'; run: number };

function parseTarget(id: string | undefined, task: string | undefined, opts: LogsOptions): Target {
  const number = (text: string, what: string) => {
    if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1)
      throw new AxError('validation', `"${text}" is not a ${what} id: ${USAGE}`);
    return Number(text);
  };
  if (opts.run !== undefined) {
    if (task !== undefined) throw new AxError('validation', `with --run, give at most the task: ${USAGE}`);
    return id === undefined
      ? { kind: 'run', run: opts.run }
      : { kind: 'task', run: opts.run, task: id, attempt: opts.attempt };
  }
  if (id === undefined) throw new AxError('validation', `say which log: ${USAGE}`);
  if (task !== undefined) return { kind: 'task', run: number(id, 'run'), task, attempt: opts.attempt };
  if (opts.attempt !== undefined)
    throw new AxError(
      'validation',
      `--attempt goes with a run and a task ("ax logs RUN TASK --attempt N"), not with an instance id`,
    );
  return { kind: 'instance', id: number(id, 'run or instance') };
}

async function resolve(api: EngineApi, target: Target): Promise<InstanceRecord> {
  if (target.kind === 'instance') {
    try {
      return await api.getInstance(target.id);
    } catch (err) {
      if (err instanceof AxError && err.code === 'not_found')
        throw new AxError('not_found', `no task instance ${target.id}: for a run, ${USAGE}`);
      throw err;
    }
  }
  const { run, instances } = await api.getRun(target.run);
  const tasks = [...new Set(instances.map((i) => i.taskName))];
  if (target.kind === 'run') {
    const failed = latestAttempts(instances).filter((i) => RETRIED.includes(i.state) || i.state === 'CANCELLED');
    const first = failed[0];
    if (!first) {
      throw new AxError(
        'validation',
        `run #${run.id} (${run.state}) has no failed task: name one, "ax logs ${run.id} TASK", of ${tasks.join(', ') || 'none yet'}`,
      );
    }
    if (failed.length > 1) {
      process.stderr.write(
        `ax: in run #${run.id} ${failed.length} tasks failed (${failed.map((i) => i.taskName).join(', ')}); this is ${first.taskName}'s log\n`,
      );
    }
    return first;
  }
  const mine = instances.filter((i) => i.taskName === target.task);
  if (mine.length === 0) {
    const spec = await api.exportWorkflow(run.workflowName).catch(() => undefined);
    const known = spec?.tasks.some((t) => t.name === target.task);
    throw new AxError(
      'not_found',
      known
        ? `task "${target.task}" has not run in run #${run.id} (yet): tasks that ran are ${tasks.join(', ') || 'none'}`
        : `run #${run.id} of ${run.workflowName} has no task "${target.task}": its tasks are ${(spec?.tasks.map((t) => t.name) ?? tasks).join(', ')}`,
    );
  }
  if (target.attempt === undefined) return mine[mine.length - 1] as InstanceRecord;
  const found = mine.find((i) => i.attempt === target.attempt);
  if (!found)
    throw new AxError(
      'not_found',
      `task "${target.task}" of run #${run.id} has no attempt ${target.attempt}: it has ${mine.map((i) => i.attempt).join(', ')}`,
    );
  return found;
}

function outputsAfterLog(inst: InstanceRecord): string[] {
  const lines = outputLines(inst.outputs);
  return lines.length === 0 ? [] : ['[ax] outputs:\n', ...lines.map((l) => `[ax] ${l}\n`)];
}

/** Each task's latest attempt, in the order the tasks first ran. */
function latestAttempts(instances: InstanceRecord[]): InstanceRecord[] {
  const latest = new Map<number, InstanceRecord>();
  for (const i of instances) if ((latest.get(i.taskId)?.attempt ?? 0) < i.attempt) latest.set(i.taskId, i);
  return [...latest.values()].sort((a, b) => a.id - b.id);
}

function printer(json: boolean, timestamps: boolean): (l: LogLine) => void {
  return (l) => {
    if (json) return void process.stdout.write(`${JSON.stringify(l)}\n`);
    const text = `${timestamps ? `${isoTime(l.ts)} ` : ''}${l.stream === 'system' ? '[ax] ' : ''}${l.line}\n`;
    if (l.stream === 'stdout') process.stdout.write(text);
    else process.stderr.write(text);
  };
}

/**
 * Prints the instance's stored lines; with follow, then its live lines until it ends. A failed
 * attempt is followed until the scheduler has decided on a retry, whose "retrying in …" line it
 * adds to this log.
 */
async function printLog(
  api: EngineApi,
  inst: InstanceRecord,
  print: (l: LogLine) => void,
  following: boolean,
): Promise<void> {
  const instanceId = inst.id;
  // Live lines arrive as events (before they reach the store); the store fills any gap.
  const live: LogLine[] = [];
  let laterAttempt = false;
  const changes = following
    ? await follow(api, [`log:${instanceId}`, 'runs'], (e) => {
        if (e.type === 'log') live.push({ ...e, stream: e.stream as LogLine['stream'] });
        if (e.type === 'instance' && e.runId === inst.runId && e.taskName === inst.taskName && e.attempt > inst.attempt)
          laterAttempt = true;
        return e.type === 'log' || ((e.type === 'instance' || e.type === 'run') && e.runId === inst.runId);
      })
    : undefined;
  let after = 0;
  let printed = 0;
  const catchUp = async (): Promise<void> => {
    for (
      let lines = await api.readLogs(instanceId, after, 5000);
      lines.length > 0;
      lines = await api.readLogs(instanceId, after, 5000)
    ) {
      for (const l of lines) print(l);
      after = (lines[lines.length - 1] as LogLine).seq;
      printed += lines.length;
    }
  };
  try {
    await catchUp();
    while (changes) {
      const now = await api.getInstance(instanceId);
      if (!ACTIVE.includes(now.state) && (!RETRIED.includes(now.state) || now.handled || laterAttempt)) {
        // The final state is written after the last lines are stored: one more read gets them all.
        await catchUp();
        break;
      }
      await changes.next();
      const batch = live.splice(0);
      if (batch.length === 0) await catchUp();
      for (const l of batch) {
        if (l.seq <= after) continue;
        if (l.seq > after + 1) await catchUp();
        if (l.seq === after + 1) {
          print(l);
          after = l.seq;
          printed += 1;
        }
      }
    }
  } finally {
    changes?.close();
  }
  if (printed === 0 && inst.startedAt === undefined && !ACTIVE.includes(inst.state)) {
    process.stderr.write(
      `ax: task ${inst.taskName} of run #${inst.runId} has no output: it did not run (${inst.reason ?? inst.state})\n`,
    );
  }
}

/** Solo, no engine holding the data dir, and the instance not over: nothing will add to its log. */
function nothingRuns(g: GlobalOptions, inst: InstanceRecord): boolean {
  return (
    modeOf(g) === 'solo' &&
    ['WAITING', 'DISPATCHED', 'RUNNING'].includes(inst.state) &&
    !readEngineLock(cliDataDir(g.dataDir))
  );
}
