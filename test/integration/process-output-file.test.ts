// The $AX_OUTPUT file as both process runners make and read it: an empty private file per start,
// read back once the process ends (at most maxBytes of it, with its whole size) and removed with
// its directory, whatever the task left there; a file the task replaced by a link or a FIFO is not
// followed or waited on: no output, no hang.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LauncherProcessRunner } from '../../engine/adapters/process/launcher-process-runner.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import type { ProcessExit, ProcessRunner } from '../../engine/ports/process-runner.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const runners: [string, () => ProcessRunner][] = [
  ['direct', () => new NodeProcessRunner()],
  [
    'launcher',
    () => {
      const runner = new LauncherProcessRunner({ killGraceMs: 1_000, onAlert: () => undefined });
      cleanups.push(() => runner.dispose());
      return runner;
    },
  ],
];

async function run(
  runner: ProcessRunner,
  command: string,
  maxBytes = 1024,
): Promise<{ exit: ProcessExit; lines: string[] }> {
  const lines: string[] = [];
  const proc = await runner.start(
    { command, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, outputFile: { env: 'AX_OUTPUT', maxBytes } },
    { onLine: (_s, line) => lines.push(line) },
  );
  return { exit: await proc.exited, lines };
}

// POSIX shells, FIFOs and links.
describe.skipIf(process.platform === 'win32')('the AX_OUTPUT file', () => {
  for (const [name, make] of runners) {
    it(`${name}: an empty private file, read back after the end and removed`, async () => {
      const { exit, lines } = await run(
        make(),
        'echo "$AX_OUTPUT"; stat -c "%a %s" "$AX_OUTPUT"; echo rows=1 >> "$AX_OUTPUT"; exit 3',
      );
      expect(exit.code).toBe(3);
      expect(lines[1]).toBe('600 0');
      expect(exit.output).toEqual({ text: 'rows=1\n', bytes: 7 });
      expect(fs.existsSync(lines[0] as string)).toBe(false);
    });

    it(`${name}: what the task left beside the file, or put in its place, goes with its directory`, async () => {
      const beside = await run(make(), 'echo "$AX_OUTPUT"; echo x > "$AX_OUTPUT.tmp"; mkdir "$AX_OUTPUT.d"');
      const replaced = await run(
        make(),
        'echo "$AX_OUTPUT"; rm "$AX_OUTPUT"; mkdir "$AX_OUTPUT"; touch "$AX_OUTPUT/x"',
      );
      for (const { exit, lines } of [beside, replaced]) {
        expect(exit.code).toBe(0);
        expect(fs.existsSync(path.dirname(lines[0] as string))).toBe(false);
      }
    });

    it(`${name}: at most maxBytes are read, with the whole size`, async () => {
      const { exit } = await run(make(), 'head -c 5000 /dev/zero | tr "\\0" x > "$AX_OUTPUT"', 1024);
      expect(exit.output?.bytes).toBe(5000);
      expect(exit.output?.text).toBe('x'.repeat(1024));
    });

    it(`${name}: a link or a FIFO in its place gives no output and no hang`, async () => {
      const linked = await run(make(), 'rm "$AX_OUTPUT"; ln -s /etc/passwd "$AX_OUTPUT"');
      expect(linked.exit.code).toBe(0);
      expect(linked.exit.output).toBeUndefined();
      const fifo = await run(make(), 'rm "$AX_OUTPUT"; mkfifo "$AX_OUTPUT"');
      expect(fifo.exit.code).toBe(0);
      expect(fifo.exit.output).toBeUndefined();
    });
  }
});
