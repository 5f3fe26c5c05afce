// A cancel's kill grace under a wall clock that steps back an hour while it runs: a real `ax serve`
// under Debian's libfaketime (the offset re-read from a file on every call; the monotonic clock
// left real), a task that ignores SIGTERM, a grace of 2 s. The SIGKILL still comes after the grace,
// so `ax cancel` confirms the task stopped; a deadline on the wall clock would lie an hour ahead.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, axJson, axStart, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { groupMembers, readPidFile } from '../helpers/processes.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
].find((f) => fs.existsSync(f));
const box = cliSandbox('ax-kill-grace-step-');

// Skipped only without Debian's faketime (libfaketime); .ci/run installs it.
describe.skipIf(!LIBFAKETIME)(
  `a kill grace while the wall clock steps back (libfaketime)${LIBFAKETIME ? '' : ' (skipped: no libfaketime)'}`,
  () => {
    it('kills a task that ignores SIGTERM after the grace, although the clock stepped back an hour', async () => {
      const offset = path.join(box.root, 'offset');
      fs.writeFileSync(offset, '+0\n');
      const plain = box.opts();
      const env = {
        LD_PRELOAD: LIBFAKETIME as string,
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
        FAKETIME_TIMESTAMP_FILE: offset,
        FAKETIME_NO_CACHE: '1',
        AX_ENGINE_CONFIG: JSON.stringify({ killGraceMs: 2_000 }),
      };
      await startServe({ ...plain, env });
      const termed = path.join(box.root, 'termed');
      writeFile(
        box.root,
        'stubborn.yaml',
        `workflow: stubborn\ntasks:\n  hold:\n    command: 'trap "echo > ${termed}" TERM; echo $$ > "${box.root}/hold.pid"; while :; do sleep 0.1; done'\n`,
      );
      expect((await ax(['apply', 'stubborn.yaml'], plain)).code).toBe(0);
      const started = await ax(['run', 'stubborn'], plain);
      const runId = Number(/started run #(\d+)/.exec(started.stdout)?.[1]);
      const pgid = await readPidFile(`${box.root}/hold.pid`, 30_000);

      // The cancel's deadline is set when its SIGTERM goes out; the clock steps back right after.
      const cancel = axStart(['--json', 'cancel', String(runId)], plain);
      await waitFor(() => fs.existsSync(termed), { timeoutMs: 30_000, message: 'the task to get its SIGTERM' });
      fs.writeFileSync(offset, '-1h\n');

      const done = await cancel.result(60_000);
      expect(done.code, done.stderr).toBe(0);
      const out = JSON.parse(done.stdout) as { stopped: number[]; unconfirmed: number[] };
      expect(out.stopped).toHaveLength(1);
      expect(out.unconfirmed).toEqual([]);
      expect(groupMembers(pgid)).toEqual([]);
      const [run] = await axJson<{ id: number; state: string }[]>(['runs', 'stubborn'], plain);
      expect(run?.state).toBe('CANCELLED');
    }, 120_000);
  },
);
