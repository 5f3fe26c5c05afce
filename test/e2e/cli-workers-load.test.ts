// `ax workers` and `ax drain` through a real `ax serve` count the tasks really running, from the
// store (`ax drain` said "finishing 0" while `ax workers` said 2/8, and the
// Workers page "0 of 8" while two ran). The worker heartbeat here is ten minutes, so the
// heartbeat's copy of the load is the one from start-up: 0.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-workers-load-');

describe('the load of the solo worker while two tasks run', () => {
  it('ax workers shows 2/8 and ax drain says it finishes 2 running tasks', async () => {
    const env = { AX_ENGINE_CONFIG: JSON.stringify({ workerHeartbeatMs: 600_000 }) };
    const opts = { ...box.opts(), env };
    await startServe(opts);
    const gate = `while [ ! -e '${path.join(box.root, 'go')}' ]; do sleep 0.05; done`;
    writeFile(
      box.root,
      'pair.yaml',
      `workflow: pair\ntasks:\n  left:\n    command: "${gate}"\n  right:\n    command: "${gate}"\n`,
    );
    expect((await ax(['apply', 'pair.yaml'], opts)).code).toBe(0);
    expect((await ax(['run', 'pair'], opts)).code).toBe(0);
    await waitFor(
      async () =>
        (await axJson<RunDetail>(['runs', '1'], opts)).instances.filter((i) => i.state === 'RUNNING').length === 2,
      {
        timeoutMs: 20_000,
        intervalMs: 200,
        message: 'both tasks RUNNING',
      },
    );

    const [listed] = await axJson<WorkerRecord[]>(['workers'], opts);
    expect(listed).toMatchObject({ id: 'local', running: 2, maxConcurrency: 8 });
    const table = await ax(['workers'], opts);
    expect(table.stdout).toMatch(/^local\s+\S+\s+solo\s+online\s+2\/8\s/m);

    const drain = await ax(['drain'], opts);
    expect(drain.stdout).toBe(
      'drain requested for worker local: it takes nothing new, finishes its 2 running task(s) and leaves\n',
    );
    expect((await ax(['workers'], opts)).stdout).toMatch(/^local\s+\S+\s+solo\s+draining\s+2\/8\s/m);
    fs.writeFileSync(path.join(box.root, 'go'), '');
    await waitFor(async () => (await axJson<WorkerRecord[]>(['workers'], opts))[0]?.running === 0, {
      timeoutMs: 20_000,
      intervalMs: 200,
      message: 'the load back to 0',
    });
  });
});
