// ax ping / ax wrap: a monitor's runs reported from the machine its job runs on (design.md §13).
// `ax ping NAME [start | success | fail | EXIT_CODE]` says one thing; `ax wrap NAME -- COMMAND…`
// runs the command as cron would, its stdin, stdout and stderr passed through (so cron's mail
// still works), reports its start, then its exit code with its output as the run's log, and
// exits with the command's code. AX being unreachable never stops the command: wrap says so on
// stderr and goes on.
import { spawn } from 'node:child_process';
import os from 'node:os';
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import { MAX_PING_LOG_BYTES, type PingAnswer, type PingReport } from '../../api/monitors.ts';
import { type GlobalOptions, withApi } from './connect.ts';
import { printJson } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** How long wrap waits for AX before it gives up on a report (the job never waits on it longer). */
const REPORT_TIMEOUT_MS = 15_000;

/** `start`, `success`, `fail` or an exit code 0-255 as a report; a clear error for anything else. */
export function parsePingWhat(word: string | undefined): Pick<PingReport, 'what' | 'exitCode'> {
  if (word === undefined || word === 'success') return { what: 'success' };
  if (word === 'start' || word === 'fail') return { what: word };
  if (/^\d{1,3}$/.test(word) && Number(word) <= 255) return { what: 'exit', exitCode: Number(word) };
  throw new AxError(
    'validation',
    `"${word}" is not something a ping says: use start, success, fail or an exit code from 0 to 255 (e.g. "ax ping backup $?")`,
  );
}

const reporter = (how: string) => `${how} by ${os.userInfo().username}@${os.hostname()}`;

function describe(answer: PingAnswer): string {
  const run = answer.run;
  const what = run.state === 'RUNNING' ? 'started' : run.state === 'SUCCESS' ? 'succeeded' : 'failed';
  return `run #${run.id} of ${run.workflowName} ${what}${answer.logCut ? ` (its log keeps the last ${MAX_PING_LOG_BYTES / 1024 / 1024} MiB)` : ''}`;
}

/** The last `max` bytes of what a command wrote, kept as it runs. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.total += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.max) this.size -= (this.chunks.shift() as Buffer).length;
  }
  text(): string {
    // The engine cuts it to its limit, saying so; this only bounds what travels.
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

async function report(globals: Globals, name: string, ping: PingReport): Promise<PingAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AxError('unavailable', `no answer within ${REPORT_TIMEOUT_MS / 1000}s`)),
      REPORT_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([withApi(globals(), (api) => api.ping(name, ping)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs argv directly (no shell, as cron's own `sh -c` already split it); resolves to its exit code, 128 + signal if killed. */
function runCommand(argv: string[], tail: Tail): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['inherit', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => {
      process.stdout.write(c);
      tail.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      process.stderr.write(c);
      tail.push(c);
    });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const signals = (['SIGTERM', 'SIGINT', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
    for (const [s, f] of signals) process.on(s, f);
    child.on('error', (err: NodeJS.ErrnoException) => {
      const line = `ax wrap: cannot run ${argv[0]}: ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`;
      process.stderr.write(line);
      tail.push(Buffer.from(line));
      resolve(err.code === 'ENOENT' ? 127 : 126);
    });
    child.on('close', (code, signal) => {
      for (const [s, f] of signals) process.off(s, f);
      resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
    });
  });
}

export function monitorCommands(program: Command, globals: Globals): void {
  program
    .command('ping')
    .description("report a monitor's run: its start, or its end (success by default; fail; an exit code)")
    .argument('<monitor>', 'the monitor (a workflow with "monitor:" and no tasks)')
    .argument('[what]', 'start | success | fail | EXIT_CODE (0 is a success)', 'success')
    .option('--run <id>', 'end this run (the id a start printed) rather than the oldest one still running')
    .option('--log <text>', "the run's log (its last 1 MiB is kept); - reads it from stdin")
    .addHelpText(
      'after',
      '\nAn end with no start before it is a run that started and ended at once.\n' +
        '\nExamples:\n  $ ax ping backup start\n  $ /usr/local/bin/backup.sh; ax ping backup $?\n  $ ax ping backup fail --log "disk full"',
    )
    .action(async (name: string, word: string, opts: { run?: string; log?: string }) => {
      const what = parsePingWhat(word);
      if (opts.run !== undefined && !/^[1-9]\d{0,15}$/.test(opts.run))
        throw new AxError('validation', `--run takes the run id a start printed (got "${opts.run}")`);
      let log = opts.log;
      if (log === '-') {
        const chunks: Buffer[] = [];
        for await (const c of process.stdin) chunks.push(c as Buffer);
        log = Buffer.concat(chunks).toString('utf8');
      }
      const answer = await withApi(globals(), (api) =>
        api.ping(name, {
          ...what,
          ...(opts.run !== undefined && { runId: Number(opts.run) }),
          ...(log !== undefined && log !== '' && { log }),
          from: reporter('ax ping'),
        }),
      );
      if (globals().json) return printJson(answer);
      console.log(describe(answer));
    });

  program
    .command('wrap')
    .description(
      "run a command for a monitor: reports its start, then its exit code with its output as the run's log; exits with the command's code",
    )
    .argument('<monitor>', 'the monitor (a workflow with "monitor:" and no tasks)')
    .argument('<command...>', 'the command and its arguments, after --')
    .usage('<monitor> -- <command...>')
    .addHelpText(
      'after',
      "\nThe command's stdin, stdout and stderr are its own (cron still mails its output). When AX cannot be\n" +
        'reached the command still runs; ax wrap says so on stderr.\n' +
        "\nExamples (a crontab line):\n  0 2 * * * ax wrap backup -- /usr/local/bin/backup.sh --full\n  */5 * * * * ax wrap sync -- sh -c 'rsync -a /src /dst && echo done'",
    )
    .action(async (name: string, argv: string[]) => {
      const warn = (what: string, err: unknown) =>
        process.stderr.write(
          `ax wrap: could not report ${what} of ${name} to AX: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      let runId: number | undefined;
      try {
        runId = (await report(globals, name, { what: 'start', from: reporter('ax wrap') })).run.id;
      } catch (err) {
        warn('the start', err);
        process.stderr.write('ax wrap: the command runs anyway\n');
      }
      const tail = new Tail(MAX_PING_LOG_BYTES);
      const code = await runCommand(argv, tail);
      try {
        await report(globals, name, {
          what: 'exit',
          exitCode: code,
          ...(runId !== undefined && { runId }),
          ...(tail.total > 0 && { log: tail.text() }),
          from: reporter('ax wrap'),
        });
      } catch (err) {
        warn(`the end (exit code ${code})`, err);
      }
      process.exit(code);
    });
}
