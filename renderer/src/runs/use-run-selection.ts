// Which attempt's log the run page shows. A choice of the user's (a click, a link with
// ?instance=ID) stays put. Until there is one, the page follows the run: what runs now, and the
// first task that failed for good as soon as there is one, so a page opened by "Run now" ends on
// the failed task's stderr rather than on the first task it happened to show. When nothing runs
// or failed any more it keeps the last one it followed. The automatic choice is not written to
// the address: a link copied then still follows the run.
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { instanceToOpen } from './run-state.ts';

export interface RunSelection {
  selected?: InstanceRecord;
  /** the user chose this attempt */
  select(instance: InstanceRecord): void;
}

export function useRunSelection(instances: InstanceRecord[]): RunSelection {
  const [params, setParams] = useSearchParams();
  const opened = useMemo(() => instanceToOpen(instances), [instances]);
  const [followed, setFollowed] = useState(opened?.id);
  if (opened && opened.id !== followed) setFollowed(opened.id);
  const chosen = params.get('instance');
  const selected =
    (chosen ? instances.find((i) => i.id === Number(chosen)) : undefined) ??
    instances.find((i) => i.id === (opened?.id ?? followed));
  return {
    selected,
    select: (instance) => setParams({ instance: String(instance.id) }, { replace: true }),
  };
}
