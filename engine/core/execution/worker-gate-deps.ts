// What a node lends the gate of its edge workers (worker-gate.ts), and what a worker token grants.
import type { TaskSecrets } from '../../api/secrets.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { Store } from '../../ports/store.ts';
import type { EngineConfig } from '../model/config.ts';
import type { RunManager } from '../runs/run-manager.ts';

/** What the node lends its edge workers. */
export interface WorkerGateDeps {
  store: Store;
  coordinator: Coordinator;
  finish: RunManager['finish'];
  clock: Clock;
  config: EngineConfig;
  /** the node's id, named in the welcome */
  nodeId: string;
  /** audits a refused call (the server passes Authenticator.recordRefusal for its principal) */
  refuse: (what: string, why: string) => Promise<void>;
  /** an edge's own alert: recorded and published as this node's alerts are */
  alert: (message: string) => void;
  /**
   * the team secrets an instance refers to, for the worker it was dispatched to (decrypted here:
   * the edge has neither the database nor the key); absent where the node has no team secrets
   */
  taskSecrets?: (instanceId: number, workerId: string) => Promise<TaskSecrets>;
}

/** What a worker token allows: one worker id, these labels. */
export interface WorkerGrant {
  workerId: string;
  labels: string[];
  /** the token's name, for messages */
  token: string;
}
