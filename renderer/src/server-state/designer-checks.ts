// The designer's one-shot engine calls: check a spec or a pasted file, apply it, show it as the
// YAML `ax export` writes, preview a schedule's next fires. Their answers depend on what is being
// typed this moment, so none is cached; only an apply changes what other pages show.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import type { ApplyOutcome, FirePreview, ValidationReport } from '../../../engine/api/engine-api.ts';
import { AxError } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';

export type ValidateInput = { spec: WorkflowSpec } | { text: string; file?: string };

/** Checks a spec, or the text of a YAML / JSON file, with the parser of `ax apply`. */
export function useValidateWorkflow(): (input: ValidateInput) => Promise<ValidationReport> {
  const api = useApi();
  return useCallback((input: ValidateInput) => api.validate(input), [api]);
}

/** Applies a spec as the UI; the workflow lists and its stored spec are read again. */
export function useApplyWorkflow() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (spec: WorkflowSpec): Promise<ApplyOutcome> => api.apply(spec, UI_ACTOR),
    // not the designer's own spec read: that would swap the document under the user's edits
    onSuccess: (outcome) => {
      for (const queryKey of [keys.workflows(), keys.workflowSpec(outcome.workflow), keys.dashboard()])
        void queryClient.invalidateQueries({ queryKey });
    },
  });
}

export type YamlResult = { text: string } | { error: unknown };

/** The spec as YAML, formatted by the engine while `open`; undefined until it answers. */
export function useWorkflowYaml(spec: WorkflowSpec, open: boolean): YamlResult | undefined {
  const api = useApi();
  const [result, setResult] = useState<YamlResult | undefined>();
  useEffect(() => {
    if (!open) return;
    let active = true;
    setResult(undefined);
    api.formatWorkflow(spec).then(
      (text) => active && setResult({ text }),
      (error: unknown) => active && setResult({ error }),
    );
    return () => {
      active = false;
    };
  }, [api, spec, open]);
  return result;
}

export interface PreviewState {
  preview?: FirePreview;
  /** field ("schedule.cron" / "schedule.timezone") → message, from the engine */
  errors: Record<string, string>;
}

/** The next five fires of a cron being typed, asked once the typing pauses. */
export function useFirePreview(cron: string | undefined, timezone: string | undefined): PreviewState {
  const api = useApi();
  const [state, setState] = useState<PreviewState>({ errors: {} });
  useEffect(() => {
    if (cron === undefined || cron.trim() === '') {
      setState({ errors: {} });
      return;
    }
    let active = true;
    const timer = setTimeout(() => {
      api.nextFires({ cron, timezone }, 5).then(
        (preview) => active && setState({ preview, errors: {} }),
        (error: unknown) => {
          if (!active) return;
          const errors: Record<string, string> = {};
          if (error instanceof AxError && error.problems.length)
            for (const p of error.problems) errors[p.path] = p.message;
          else errors['schedule.cron'] = error instanceof Error ? error.message : String(error);
          setState({ errors });
        },
      );
    }, 350);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [api, cron, timezone]);
  return state;
}
