// Whether a dispatch taken from the queue may run on this worker (design.md §8, §12): the instance is
// still DISPATCHED to this worker at this attempt (else a duplicate or stale delivery), its task
// still exists, and the worker's accept-policy allows it. The command comes from the store here,
// never from the message.
import { because } from '../../api/reasons.ts';
import type { InstanceRecord } from '../../api/types.ts';
import type { DispatchMessage } from '../../ports/coordinator.ts';
import type { InstanceStore, TaskDefinition } from '../../ports/store.ts';
import { accepts } from '../model/routing.ts';
import type { CachedWorkflow, WorkflowCache } from '../workflow/workflow-cache.ts';

export type Admission = { inst: InstanceRecord; wf: CachedWorkflow; task: TaskDefinition } | { refused: string };

export async function admitDispatch(
  store: InstanceStore,
  workflows: WorkflowCache,
  worker: { id: string; labels: string[]; acceptWorkflows?: string[]; acceptUnlabelled: boolean },
  message: DispatchMessage,
): Promise<Admission> {
  const inst = await store.getInstance(message.instanceId);
  if (!inst) return { refused: 'no such instance' };
  if (inst.state !== 'DISPATCHED' || inst.attempt !== message.attempt || inst.workerId !== worker.id) {
    return {
      refused: `it is ${inst.state} (attempt ${inst.attempt}, worker ${inst.workerId ?? 'none'}): a duplicate or stale delivery`,
    };
  }
  const wf = await workflows.get(inst.workflowId);
  const task = wf?.tasks.get(inst.taskId);
  if (!wf || !task) return { refused: 'its task no longer exists' };
  const policy = {
    labels: worker.labels,
    workflows: worker.acceptWorkflows,
    acceptUnlabelled: worker.acceptUnlabelled,
  };
  if (!accepts(policy, { workflowName: wf.graph.name, labels: task.labels })) {
    // Back to the queue for a worker that accepts it.
    const why = because('worker_refused', { worker: worker.id });
    await store.requeueInstance(
      inst.id,
      { from: ['DISPATCHED'], attempt: inst.attempt, workerId: worker.id },
      why.reason,
      why.reasonCode,
    );
    return { refused: 'this worker does not accept it (accept-policy)' };
  }
  return { inst, wf, task };
}
