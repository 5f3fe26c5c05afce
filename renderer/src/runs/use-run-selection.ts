// Which task's detail the run page shows beside the graph. Only a choice of the user's (a click,
// a link with ?instance=ID) opens it: until then the graph has the page's width, and a failed
// run's banner shows the failure.
import { useSearchParams } from 'react-router-dom';
import type { InstanceRecord } from '../../../engine/api/types.ts';

export interface RunSelection {
  /** the attempt whose detail is open, chosen by the user */
  selected?: InstanceRecord;
  /** the user chose this attempt: its detail opens */
  select(instance: InstanceRecord): void;
  /** closes the detail (the address loses ?instance) */
  close(): void;
}

export function useRunSelection(instances: InstanceRecord[]): RunSelection {
  const [params, setParams] = useSearchParams();
  const chosen = params.get('instance');
  return {
    selected: chosen ? instances.find((i) => i.id === Number(chosen)) : undefined,
    select: (instance) => setParams({ instance: String(instance.id) }, { replace: true }),
    close: () => setParams({}, { replace: true }),
  };
}
