// Workers: their rows, and the claim that ties a worker id to one process.
import type { WorkerRecord } from '../api/types.ts';
import type { WorkerRegistration } from './store-types.ts';

/** The workers' rows and their claims. */
export interface WorkerStore {
  upsertWorker(worker: WorkerRecord): Promise<void>;
  listWorkers(): Promise<WorkerRecord[]>;
  /** one worker's row with the claim that holds its id (see claimWorker) */
  getWorker(id: string): Promise<WorkerRegistration | undefined>;
  /**
   * Takes a worker id for one process (`claim`, a token of that process): inserts the row when
   * `previous` is undefined (refused if the id exists), else overwrites it only while it still
   * carries `previous` (null: a row no process has claimed yet). False when another node won.
   */
  claimWorker(worker: WorkerRecord, claim: string, previous: string | null | undefined): Promise<boolean>;
  /** The store heartbeat of a claimed id: written only while the row carries `claim`; false when another node took the id. */
  beatWorker(worker: WorkerRecord, claim: string): Promise<boolean>;
}
