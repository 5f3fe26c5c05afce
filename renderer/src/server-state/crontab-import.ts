// The crontab import's engine calls: the preview of a pasted crontab (what each line becomes,
// converted by the engine with its clock, zone and task user) and the import of the ticked lines.
// The preview depends on what is being typed this moment, so it is not cached; an import changes
// the workflow list, which is read again.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ApplyOutcome } from '../../../engine/api/engine-api.ts';
import type { CrontabImportChoice, CrontabImportRequest, ImportReport } from '../../../engine/api/import-report.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';

export interface CrontabPreview {
  /** the last report the engine gave (kept while a newer request is asked or failed) */
  report?: ImportReport;
  /** the request that report answers */
  answered?: CrontabImportRequest;
  /** why the latest request has no report (a name that is not valid, text over 1 MiB) */
  error?: Error;
  pending: boolean;
}

/** The engine's report of `request` (undefined: nothing to preview), asked once the typing pauses. */
export function useCrontabPreview(request: CrontabImportRequest | undefined, pauseMs = 300): CrontabPreview {
  const api = useApi();
  const [state, setState] = useState<CrontabPreview>({ pending: false });
  const asked = request && JSON.stringify(request);
  useEffect(() => {
    if (asked === undefined) {
      setState({ pending: false });
      return;
    }
    const wanted = JSON.parse(asked) as CrontabImportRequest;
    let active = true;
    setState((s) => ({ ...s, pending: true }));
    const timer = setTimeout(() => {
      api.previewCrontabImport(wanted).then(
        (report) => active && setState({ report, answered: wanted, pending: false }),
        (error: unknown) =>
          active &&
          setState((s) => ({
            ...s,
            error: error instanceof Error ? error : new Error(String(error)),
            pending: false,
          })),
      );
    }, pauseMs);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [api, asked, pauseMs]);
  return state;
}

/** Imports the chosen lines (all or nothing); the workflow lists are read again. */
export function useImportCrontab() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (choice: CrontabImportChoice): Promise<ApplyOutcome[]> => api.importCrontab(choice, UI_ACTOR),
    onSuccess: () => {
      for (const queryKey of [keys.workflows(), keys.dashboard()]) void queryClient.invalidateQueries({ queryKey });
    },
  });
}
