// Save = validate (every problem with its field path) then apply as 'ui'. Once a save has shown
// problems, each later edit is re-checked (debounced), so a fixed field clears its mark at once.
import { App } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApplyOutcome } from '../../../engine/api/engine-api.ts';
import { AxError, type ValidationProblem } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { useApplyWorkflow, useValidateWorkflow } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export interface SaveState {
  problems: ValidationProblem[];
  /** a validation has run (so "no problems" means something) */
  checked: boolean;
  saving: boolean;
  save(): Promise<ApplyOutcome | undefined>;
  setProblems(problems: ValidationProblem[]): void;
}

export function useSave(
  spec: WorkflowSpec,
  options: {
    draftErrors: () => string[];
    onSaved: (spec: WorkflowSpec, outcome: ApplyOutcome) => void;
    onProblems: (problems: ValidationProblem[]) => void;
  },
): SaveState {
  const validate = useValidateWorkflow();
  const { mutateAsync: apply } = useApplyWorkflow();
  const { message } = App.useApp();
  const { t } = useTranslation('designer');
  const [problems, setProblems] = useState<ValidationProblem[]>([]);
  const [checked, setChecked] = useState(false);
  const [saving, setSaving] = useState(false);
  const opts = useRef(options);
  useEffect(() => {
    opts.current = options;
  });

  // live re-check once problems have been shown
  const watching = checked && problems.length > 0;
  useEffect(() => {
    if (!watching) return;
    let active = true;
    const timer = setTimeout(() => {
      validate({ spec }).then(
        (report) => active && setProblems(report.problems),
        () => undefined,
      );
    }, 500);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [validate, spec, watching]);

  const save = useCallback(async () => {
    const drafts = opts.current.draftErrors();
    if (drafts.length) {
      message.error(t('save.drafts', { first: drafts[0] }));
      return undefined;
    }
    setSaving(true);
    try {
      const report = await validate({ spec });
      setChecked(true);
      if (!report.ok) {
        setProblems(report.problems);
        opts.current.onProblems(report.problems);
        message.error(t('save.problems', { count: report.problems.length }));
        return undefined;
      }
      const outcome = await apply(spec);
      setProblems([]);
      opts.current.onSaved(spec, outcome);
      message.success(
        outcome.changed
          ? t('save.saved', { name: outcome.workflow, version: outcome.version })
          : t('save.unchanged', { name: outcome.workflow }),
      );
      return outcome;
    } catch (e) {
      if (e instanceof AxError && e.problems.length) {
        setChecked(true);
        setProblems(e.problems);
        opts.current.onProblems(e.problems);
        message.error(t('save.problems', { count: e.problems.length }));
      } else message.error(t('save.failed', { error: errorMessage(e) }));
      return undefined;
    } finally {
      setSaving(false);
    }
  }, [validate, apply, spec, message, t]);

  const replaceProblems = useCallback((next: ValidationProblem[]) => {
    setProblems(next);
    setChecked(next.length > 0);
  }, []);

  return { problems, checked, saving, save, setProblems: replaceProblems };
}
