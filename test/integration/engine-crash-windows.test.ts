// What an engine that died between two writes leaves, finished at the next start: a
// run created without its root instances, or with only some of them (the crash fell between
// creating the run and its roots, or half-way through them), runs to its end with every root.
// The state is written as the dead engine would have left it; the next engine is a real one.
import { afterEach, describe, expect, it } from 'vitest';
import { createRun } from '../contract/store-fixtures.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

const THREE_ROOTS = `workflow: three
tasks:
  a: { command: "echo a" }
  b: { command: "echo b" }
  c: { command: "echo c" }
  after: { command: "echo after", upstream: [a, b, c] }
`;

describe('a crash between a run and its root instances', () => {
  it('start-up completes runs left with no roots or only some of them: every task runs, the runs succeed', async () => {
    // The "dead engine": it applied the workflow, created two runs and only one root of the second.
    const dead = await startTestEngine({ start: false });
    await dead.apply(THREE_ROOTS);
    const store = dead.engine.store;
    const workflowId = (await store.findWorkflowId('three')) as number;
    const graph = await store.getWorkflowGraph(workflowId);
    const a = graph?.tasks.find((x) => x.name === 'a');
    const now = Date.now();
    const bare = await createRun(store, {
      workflowId,
      state: 'RUNNING',
      trigger: 'manual',
      triggeredBy: 'test',
      logicalTime: now,
      createdAt: now,
    });
    const half = await createRun(store, {
      workflowId,
      state: 'RUNNING',
      trigger: 'manual',
      triggeredBy: 'test',
      logicalTime: now,
      createdAt: now,
    });
    await store.createInstance({
      runId: half?.id as number,
      workflowId,
      taskId: a?.id as number,
      taskName: 'a',
      attempt: 1,
      state: 'WAITING',
      notBefore: now,
      createdAt: now,
    });
    await store.close();

    t = await startTestEngine({ dir: dead.dir });
    for (const run of [bare, half]) {
      const done = await t.waitRun(run?.id as number);
      expect(done.run.state, JSON.stringify(done.instances)).toBe('SUCCESS');
      expect(done.instances.map((i) => `${i.taskName}#${i.attempt}=${i.state}`).sort()).toEqual([
        'a#1=SUCCESS',
        'after#1=SUCCESS',
        'b#1=SUCCESS',
        'c#1=SUCCESS',
      ]);
    }
  });
});
