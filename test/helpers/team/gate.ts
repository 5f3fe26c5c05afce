// A gate task processes wait at, idle, until the test opens it: the test holds an exclusive flock
// on a file (through a flock(1) child), and the gate's shell command takes it shared. A task that
// comes to the gate after it opened passes at once, so there is no race between opening and
// arriving; and waiting costs nothing, however many tasks wait (no polling loop per task).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '../wait-for.ts';

/** flock(1) from util-linux. */
export const hasFlock = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

export interface Gate {
  /** the shell command that waits at the gate */
  readonly wait: string;
  /** opens it; resolves once the lock is released */
  open(): Promise<void>;
  /** the flock child that holds it (the team kills it on close) */
  readonly holder: ChildProcess;
}

/** Creates DIR/NAME.gate and holds it; env marks the holder as the team's. */
export async function holdGate(dir: string, name: string, env: NodeJS.ProcessEnv): Promise<Gate> {
  const file = path.join(dir, `${name}.gate`);
  fs.writeFileSync(file, '');
  const holder = spawn('flock', ['-x', file, '-c', 'echo held; exec cat'], { stdio: ['pipe', 'pipe', 'ignore'], env });
  let failed: Error | undefined;
  holder.on('error', (err) => (failed = err)); // no flock(1): a failure, stated clearly
  let out = '';
  holder.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await waitFor(
    () => {
      if (failed) throw failed;
      if (holder.exitCode !== null) throw new Error(`flock exited ${holder.exitCode}`);
      return out.includes('held');
    },
    { timeoutMs: 20_000, message: `the gate ${name} to be held` },
  );
  const released = once(holder, 'exit');
  return {
    wait: `flock -s "${file}" true`,
    holder,
    async open() {
      holder.stdin?.end();
      await released;
    },
  };
}
