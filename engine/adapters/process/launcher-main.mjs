// The launcher: a small Node process that spawns task processes for the engine and watches over
// them. Plain JavaScript with no imports of the engine, so it starts the same from the sources
// (tsx) and from the bundle (scripts/build-cli.mjs copies it beside dist/ax.mjs), without a
// TypeScript loader and with a small heap: fork copies the forking process's page tables, so a
// spawn from here costs a fraction of one from the engine, and it blocks this process's thread,
// not the engine's. See launcher-process-runner.ts for the engine's side.
//
// Protocol: Node IPC with serialization 'advanced' (Buffers pass as bytes). Each message is a
// batch, an array of operations, each an array whose first element names it; a batch holds what
// one side had to say during one turn of its event loop.
//   engine → launcher
//     ['base', env]                                the environment later starts differ from
//     ['start', id, file, args, cwd | null, set, unset]
//                                                  spawn `file args` detached (its own group),
//                                                  its environment the base with `set` (an
//                                                  object) over it and the `unset` names removed
//   launcher → engine
//     ['pid', id, pid, startTicks]                 spawned; startTicks: its start time from
//                                                  /proc (field 22), read before it can be
//                                                  reaped, or null without /proc
//     ['out', id, 1 | 2, bytes]                    a raw chunk of stdout (1) or stderr (2)
//     ['exit', id, code, signal, error | null]     ended and its output is all sent (after the
//                                                  streams close, or 200 ms after the exit when
//                                                  a background child holds them open); error:
//                                                  the spawn failed (no pid), e.g. no such shell
// Ids are the engine's. Line splitting, kills (signals to the group), /proc scans stay with the
// engine: only what needs a fork happens here.
//
// Watchdog: when the engine is gone (the IPC channel disconnects, or this process is re-parented,
// also before it got here: the engine killed while forking it)
// every process group spawned here that still has a member gets SIGTERM, SIGKILL after the grace
// (argv[2], milliseconds), and the launcher exits.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';

const STREAM_CLOSE_WAIT_MS = 200;
/** the longest that output still arriving (a background grandchild) holds a task open after its shell exits */
const STREAM_CLOSE_MAX_MS = 5000;
const CHECK_MS = 500;
const graceMs = Number(process.argv[2] ?? 1500);
// The engine's pid as it forked us (argv[3]): if the engine died while this process was still
// starting, process.ppid is already init's here, and only the pid the engine passed tells.
const parent = Number(process.argv[3] ?? process.ppid);
// The user and group tasks run as, "UID:GID" (argv[4], a root engine's run-as): absent, the launcher's own.
const [runUid, runGid] = (process.argv[4] ?? '').split(':').map((n) => (n === '' ? undefined : Number(n)));

/** groups spawned here that may still have members; pruned once a group is empty */
const groups = new Set();
/** the streams being read, paused while the engine is far behind on the channel */
const streams = new Set();
let outbox = [];
let flushing = false;
let stopping = false;
// Output read but not yet written to the channel (a busy engine reads it late). Reading stops only
// past PAUSE_BYTES: a paused stream keeps what arrives in its own buffer and its pipe, and on resume
// each stream's backlog comes out in one block, so stdout and stderr would land stream by stream
// (the old bound, Node's 128 KB channel backlog, was reached by any chatty task during a large
// log write). Below the bound every chunk goes into the one outbox in the order it was read.
const PAUSE_BYTES = 16 * 1024 * 1024;
const RESUME_BYTES = PAUSE_BYTES / 4;
let unsentBytes = 0;
let paused = false;

function post(op, bytes = 0) {
  outbox.push(op);
  unsentBytes += bytes;
  if (!paused && unsentBytes > PAUSE_BYTES) {
    paused = true;
    for (const s of streams) s.pause();
  }
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
}

function flush() {
  flushing = false;
  if (outbox.length === 0 || !process.connected) return;
  const batch = outbox;
  outbox = [];
  let bytes = 0;
  for (const op of batch) if (op[0] === 'out') bytes += op[3].length;
  const written = () => {
    unsentBytes -= bytes;
    if (paused && unsentBytes <= RESUME_BYTES) {
      paused = false;
      for (const s of streams) s.resume();
    }
  };
  try {
    process.send(batch, undefined, {}, written);
  } catch {
    return; // the engine is gone: the 'disconnect' handler takes over
  }
}

/** The environment the engine's tasks share; each start sends only how its own differs. */
let base = {};

function envOf(set, unset) {
  const env = { ...base, ...set };
  for (const name of unset) delete env[name];
  return env;
}

function start(id, file, args, cwd, env) {
  let child;
  try {
    child = spawn(file, args, {
      cwd: cwd ?? undefined,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      uid: runUid,
      gid: runGid,
    });
  } catch (err) {
    post(['exit', id, 127, null, err instanceof Error ? err.message : String(err)]);
    return;
  }
  const pid = child.pid;
  if (pid !== undefined) {
    groups.add(pid);
    post(['pid', id, pid, startTicks(pid)]);
  }
  let ended = false;
  let exitTimer;
  let chunks = 0;
  const end = (code, signal, error) => {
    if (ended) return;
    ended = true;
    clearTimeout(exitTimer);
    for (const s of [child.stdout, child.stderr]) {
      streams.delete(s);
      s.destroy();
    }
    post(['exit', id, code, signal, error]);
    if (pid !== undefined) prune(pid);
  };
  for (const [stream, fd] of [
    [child.stdout, 1],
    [child.stderr, 2],
  ]) {
    streams.add(stream);
    if (paused) stream.pause();
    stream.on('data', (chunk) => {
      chunks += 1;
      if (!ended) post(['out', id, fd, chunk], chunk.length);
    });
    stream.on('error', () => undefined);
    stream.on('close', () => streams.delete(stream));
  }
  // Spawn failures (the shell missing) come as 'error' without a pid, never as 'exit'.
  child.on('error', (err) => {
    if (child.pid === undefined) end(127, null, err.message);
  });
  child.on('exit', (code, signal) => {
    // 'close' waits for the streams, which a background grandchild may hold open for hours:
    // after a quiet STREAM_CLOSE_WAIT_MS they are closed by us. The check runs in setImmediate,
    // after the loop's poll phase, so output already in the pipe is read first even when the loop
    // was late; while output still arrives it waits again, up to STREAM_CLOSE_MAX_MS.
    const deadline = performance.now() + STREAM_CLOSE_MAX_MS;
    let seen = chunks;
    const check = () => {
      if (ended) return;
      if (chunks !== seen && performance.now() < deadline) {
        seen = chunks;
        exitTimer = setTimeout(() => setImmediate(check), STREAM_CLOSE_WAIT_MS);
        return;
      }
      end(code, signal, null);
    };
    exitTimer = setTimeout(() => setImmediate(check), STREAM_CLOSE_WAIT_MS);
  });
  child.on('close', (code, signal) => {
    if (child.pid !== undefined) end(code, signal, null);
  });
}

/** startTicks's read buffer, one for all: a stat line is a few hundred bytes */
const statBuffer = Buffer.alloc(4096);

/**
 * When the process started, in clock ticks after boot: the engine's left-running scan looks only
 * at processes born since. Read here, right after the spawn, because a child cannot be reaped
 * before this turn of the event loop ends; by the time the engine hears of it, it may be gone.
 */
function startTicks(pid) {
  let fd;
  try {
    // One read into a reused buffer: readFileSync sees a /proc file's size as 0 and reads it in a
    // fresh 64 KB buffer, twice (the second read to see the end), per task. The line is a few
    // hundred bytes (comm is at most 64); a line cut short (no newline) gives null.
    fd = openSync(`/proc/${pid}/stat`, 'r');
    const stat = statBuffer.latin1Slice(0, readSync(fd, statBuffer, 0, statBuffer.length, 0));
    if (!stat.endsWith('\n')) return null;
    // "pid (comm) state ...": comm may hold spaces and parentheses; starttime is field 22.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** true while the group has a member (a zombie counts: the engine judges finer, from /proc) */
function groupExists(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function prune(pgid) {
  if (!groupExists(pgid)) groups.delete(pgid);
}

function signalAll(signal) {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, signal);
    } catch {
      groups.delete(pgid);
    }
  }
}

/** The engine is gone: nothing it started may run on. */
function stopAll() {
  if (stopping) return;
  stopping = true;
  signalAll('SIGTERM');
  // The monotonic clock: a wall clock stepped during the grace must not move the SIGKILL.
  const killAt = performance.now() + graceMs;
  setInterval(() => {
    for (const pgid of groups) prune(pgid);
    if (groups.size === 0) process.exit(0);
    if (performance.now() >= killAt) signalAll('SIGKILL');
    // Members left as unreaped zombies still answer kill -0: after the SIGKILL, give up on them.
    if (performance.now() >= killAt + 500) process.exit(0);
  }, 50);
  setTimeout(() => process.exit(0), graceMs + 600);
}

process.on('message', (batch) => {
  for (const op of batch) {
    if (op[0] === 'base') base = op[1];
    else if (op[0] === 'start' && !stopping) start(op[1], op[2], op[3], op[4], envOf(op[5], op[6]));
  }
});
process.on('disconnect', stopAll);
// Ctrl-C in a terminal reaches the whole foreground group; the engine decides what it means.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', stopAll);
process.on('SIGHUP', stopAll);
if (process.ppid !== parent || !process.connected) stopAll();
setInterval(() => {
  if (process.ppid !== parent) stopAll();
  for (const pgid of groups) prune(pgid);
}, CHECK_MS);
