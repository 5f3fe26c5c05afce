// @vitest-environment jsdom
// A run waiting for another workflow draws that workflow's task as a ghost node: dashed, with
// the workflow, the task and its state, the reason and deadline on hover, an edge to the waiting
// task, and a click that opens the other run. The waiting task's own node keeps its full reason.
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../engine/api/types.ts';
import type { GhostTask } from '../graph/index.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { RunGraph } from './RunGraph.tsx';
import { inst } from './test-instances.ts';

const ORDERS = `workflow: orders
tasks:
  extract: { command: echo extract }
  load: { command: echo load, upstream: [extract] }
`;
const REASON = 'waiting for billing.export at 2026-12-01T00:00:00Z (run #7 is RUNNING)';
const run: RunRecord = {
  id: 1,
  workflowId: 1,
  workflowName: 'orders',
  state: 'RUNNING',
  trigger: 'manual',
  triggeredBy: 'me',
  logicalTime: 0,
  createdAt: 0,
};
const ghost: GhostTask = {
  id: 'billing.export',
  workflow: 'billing',
  task: 'export',
  state: 'RUNNING',
  runState: 'RUNNING',
  runId: 7,
  waiting: ['load'],
  reason: REASON,
  deadline: Date.UTC(2026, 11, 1, 1, 0),
};

describe('RunGraph with a ghost task of another workflow', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  it(
    'draws it dashed with its workflow, task and state, says why on hover, and opens its run',
    { timeout: 60_000 },
    async () => {
      await ui.engine.apply(ORDERS);
      const instances = [
        inst('extract', { state: 'SUCCESS', startedAt: 0, finishedAt: 1000 }),
        inst('load', { state: 'WAITING', reason: REASON }),
      ];
      ui.render(
        <Routes>
          <Route path="/runs/7" element={<p>the billing run</p>} />
          <Route
            path="*"
            element={
              <div style={{ height: 600 }}>
                <RunGraph
                  run={run}
                  instances={instances}
                  live
                  ghosts={[ghost]}
                  onSelectTask={() => undefined}
                  onShowLog={() => undefined}
                  onRerun={async () => undefined}
                />
              </div>
            }
          />
        </Routes>,
      );
      const node = await screen.findByTestId('ghost-node', {}, { timeout: 20_000 });
      expect(node.className).toContain('ax-ghost-node');
      expect(node.textContent).toContain('billing');
      expect(node.textContent).toContain('export');
      expect(node.textContent).toContain('Running');
      expect(node.getAttribute('title')).toContain(REASON);
      expect(node.getAttribute('title')).toMatch(/The wait gives up at .*\d/);
      // the edge from the ghost to the task waiting for it, dashed
      await waitFor(() => expect(document.querySelector('.react-flow__edge.ax-edge--ghost')).not.toBeNull());
      expect(document.querySelector('[data-testid="rf__edge-billing.export->load"]')).not.toBeNull();
      // the waiting task's own node keeps the whole reason on hover
      const waiting = document.querySelector('[data-task="load"]')!;
      expect(waiting.getAttribute('title')).toContain(REASON);

      fireEvent.click(node);
      expect(await screen.findByText('the billing run')).toBeTruthy();
    },
  );
});
