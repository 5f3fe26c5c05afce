// `on: engine_start` through the real `ax`: each start of `ax serve` runs the workflow once
// (trigger engine_start), a restart runs it again, and a one-shot `ax run` of another workflow
// (an engine that lives for one command) does not; `ax ls` says when it runs.
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-engine-start-');

const BOOT = 'workflow: boot\non: engine_start\ntasks:\n  hello: { command: "echo booted" }\n';
const OTHER = 'workflow: other\ntasks:\n  a: { command: "echo other" }\n';

describe('on: engine_start', () => {
  it('runs at each start of ax serve, not at a one-shot ax run', async () => {
    const opts = box.opts();
    writeFile(box.root, 'boot.yaml', BOOT);
    writeFile(box.root, 'other.yaml', OTHER);
    for (const f of ['boot.yaml', 'other.yaml']) expect((await ax(['apply', f], opts)).code).toBe(0);
    const ls = await ax(['ls'], opts);
    expect(ls.stdout).toMatch(/^boot\s+1\s+yes\s+when the engine starts\s/m);
    const bootRuns = async () => axJson<RunRecord[]>(['runs', 'boot', '-n', '100'], opts);

    // a one-shot engine: runs what it is asked to, nothing of its own
    expect((await ax(['run', 'other'], opts)).code).toBe(0);
    expect(await bootRuns()).toEqual([]);

    for (const starts of [1, 2]) {
      const serve = await startServe(opts);
      const runs = await waitFor(
        async () => {
          const list = await bootRuns();
          return list.length === starts && list.every((r) => r.state === 'SUCCESS') ? list : undefined;
        },
        { timeoutMs: 30_000, message: `the engine-start run of start ${starts}` },
      );
      expect(runs.map((r) => r.trigger)).toEqual(Array(starts).fill('engine_start'));
      // triggered by the node: host:pid of this serve
      expect(runs[0]?.triggeredBy).toMatch(new RegExp(`:${serve.pid}$`));
      serve.kill('SIGTERM');
      expect((await serve.result(40_000)).code).toBe(0);
      expect((await ax(['run', 'other'], opts)).code).toBe(0);
      expect(await bootRuns()).toHaveLength(starts);
    }
  });
});
