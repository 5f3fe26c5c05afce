// What both process runners do before a task process exists: check the working directory,
// choose the shell, write the environment files. The spawn itself differs (directly, or in a
// launcher process).
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  constants as fsConstants,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessExit, ProcessSpec } from '../../ports/process-runner.ts';
import { IS_WINDOWS } from './process-groups.ts';

const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fsConstants;

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

export interface PreparedSpawn {
  file: string;
  args: string[];
  /** the spec's environment plus the env files' names and AX_SPAWN_ID */
  env: Record<string, string>;
  spawnId: string;
  /** removes the env files and the output file (none: a no-op); call once the process has ended */
  cleanup(): void;
  /** the output file's first bytes and size (spec.outputFile), undefined without one or when unreadable */
  readOutput(): ProcessExit['output'];
}

/** Checks, shell and env files of a spec; throws what to fix when it cannot be spawned. */
export function prepareSpawn(
  spec: ProcessSpec,
  shellOverride?: string,
  owner?: { uid: number; gid: number },
): PreparedSpawn {
  if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
    // Node would report a missing cwd as "spawn /bin/sh ENOENT", which blames the shell.
    throw new Error(`working directory "${spec.cwd}" does not exist`);
  }
  const [file, args] = shellCommand(spec, shellOverride);
  const values = { ...spec.envFiles, ...(spec.outputFile && { [spec.outputFile.env]: '' }) };
  const files = writeEnvFiles(values, owner);
  const spawnId = randomBytes(8).toString('hex');
  const outputPath = spec.outputFile && files?.env[spec.outputFile.env];
  return {
    file,
    args,
    env: { ...spec.env, ...files?.env, AX_SPAWN_ID: spawnId },
    spawnId,
    cleanup: () => files?.remove(),
    readOutput: () => (outputPath ? readHead(outputPath, spec.outputFile?.maxBytes ?? 0) : undefined),
  };
}

/**
 * The process's end with what it wrote to its output file, read before the files are removed
 * (which follows at once).
 */
export function endWithOutput(exited: Promise<ProcessExit>, prepared: PreparedSpawn): Promise<ProcessExit> {
  const out = exited.then((exit) => {
    const output = prepared.readOutput();
    return output ? { ...exit, output } : exit;
  });
  void out.finally(prepared.cleanup);
  return out;
}

/**
 * The first maxBytes of a file the task may have replaced (by a link, a FIFO, a directory): read
 * only a regular file, without waiting, and never more than maxBytes; undefined otherwise.
 */
function readHead(path: string, maxBytes: number): ProcessExit['output'] {
  let fd: number | undefined;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString('utf8'), bytes: stat.size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes each value to a file of its own in a private temporary directory (0700, file 0600),
 * both given to `owner` when tasks run as another user (run-as); returns the variables naming
 * them and how to remove them.
 */
function writeEnvFiles(
  values: Record<string, string> | undefined,
  owner?: { uid: number; gid: number },
): { env: Record<string, string>; remove(): void } | undefined {
  if (!values || Object.keys(values).length === 0) return undefined;
  const dir = mkdtempSync(join(taskTmpdir(), 'ax-task-'));
  const env: Record<string, string> = {};
  try {
    for (const [name, text] of Object.entries(values)) {
      const file = join(dir, name.toLowerCase());
      writeFileSync(file, text, { mode: 0o600 });
      if (owner) chownSync(file, owner.uid, owner.gid);
      env[name] = file;
    }
    if (owner) chownSync(dir, owner.uid, owner.gid);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { env, remove: () => removeDir(dir, Object.values(env)) };
}

/**
 * Removes the directory of a task's files: the files made there, then the directory, two
 * syscalls per file and one for it; only when the task left more there (ENOTEMPTY) the recursive
 * remove, whose first try at the non-empty directory throws (Node's rmSync takes a stack for it)
 * and costs several syscalls per entry — at a team's task rate that was the engine's largest
 * filesystem cost (docs/benchmarks.md, "Issue 26 part 6, per-task CPU").
 */
function removeDir(dir: string, files: string[]): void {
  for (const file of files) {
    try {
      unlinkSync(file);
    } catch {
      // gone already (the task removed it), or a directory in its place: the recursive remove takes it
    }
  }
  try {
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}

let tmp: { key: string; dir: string } | undefined;

/**
 * os.tmpdir(), asked again only when TMPDIR, TMP or TEMP changed: each call reads the three
 * through Node's set-uid-safe getenv, five syscalls a variable (getuid, geteuid, getgid, getegid,
 * capget) — fifteen per task for the same answer.
 */
function taskTmpdir(): string {
  const key = `${process.env.TMPDIR}\0${process.env.TMP}\0${process.env.TEMP}`;
  if (tmp?.key !== key) tmp = { key, dir: tmpdir() };
  return tmp.dir;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function shellCommand(spec: ProcessSpec, override: string | undefined): [string, string[]] {
  if (IS_WINDOWS) {
    // /d: no AutoRun commands; /s with verbatim arguments: the command line passes unmangled.
    return [process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${spec.command}"`]];
  }
  if (override !== undefined) return [override, ['-c', spec.command]];
  const shell = spec.env.SHELL ?? process.env.SHELL;
  return [shell !== undefined && shell !== '' && existsSync(shell) ? shell : '/bin/sh', ['-c', spec.command]];
}
