// The reference every throughput figure is compared with: `SHELL -c true` spawned exactly as the
// engine's launcher spawns a task (detached, stdin ignored, stdout and stderr piped and read, done
// at 'close'), `concurrency` at a time. Plain JavaScript, so the small plain-Node process
// bench/peer-child.mjs runs it without a loader; bench/solo-throughput.ts runs it in-process.

import { spawn } from 'node:child_process';

/** One spawn of `shell -c true`, resolved at 'close'. */
export function spawnTrue(shell) {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${shell} -c true exited ${code}`))));
  });
}

/** `total` spawns, `concurrency` at a time. */
export async function spawnMany(shell, total, concurrency) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await spawnTrue(shell);
      }
    }),
  );
}
