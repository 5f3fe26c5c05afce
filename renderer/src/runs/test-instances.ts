// Test fixture for the run view's unit tests: an instance record with defaults, ids counting up.
import type { InstanceRecord } from '../../../engine/api/types.ts';

let nextId = 1;

export function inst(taskName: string, fields: Partial<InstanceRecord>): InstanceRecord {
  return {
    id: nextId++,
    runId: 1,
    workflowId: 1,
    taskId: 1,
    taskName,
    attempt: 1,
    state: 'WAITING',
    notBefore: 0,
    createdAt: 0,
    handled: false,
    ...fields,
  };
}
