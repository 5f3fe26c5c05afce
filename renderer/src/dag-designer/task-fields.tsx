// The parts of the task form (TaskPanel.tsx) that carry their own state or logic: the field ids,
// the fields whose boxes hold a draft (a text that does not parse yet), the name box that renames
// on leave, the retry backoff's fields, the timeout suggestion.
import { BulbOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Select, Typography } from 'antd';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskStats } from '../../../engine/api/engine-api.ts';
import type { RetryBackoff } from '../../../engine/api/types.ts';
import { formatDuration } from '../../../engine/core/model/duration.ts';
import { DurationInput } from './fields/DurationInput.tsx';
import { mono } from './fields/mono.ts';
import { problemField } from './fields/ProblemField.tsx';
import { EXPONENTIAL_MAX_MS, type RenameProblem } from './model/spec-ops.ts';

export function fieldId(field: string): string {
  return `task-field-${field.replace(/\./g, '-')}`;
}

export const TaskField = problemField(fieldId);

/** Another form's fields (the workflow's inherited settings): its Field component and its ids. */
export interface FormIds {
  Field: typeof TaskField;
  idOf: (field: string) => string;
}
const TASK_FORM: FormIds = { Field: TaskField, idOf: fieldId };

export type LocalErrors = Record<string, string | undefined>;

/** Each field's draft error, and per field a setter that stays the same across renders. */
export interface DraftErrors {
  errors: LocalErrors;
  /** stable per field, as the boxes report their draft error from an effect */
  onError(field: string): (error: string | undefined) => void;
}

export function useDraftErrors(): DraftErrors {
  const [errors, setErrors] = useState<LocalErrors>({});
  const setters = useRef(new Map<string, (error: string | undefined) => void>());
  const onError = useCallback((field: string) => {
    let set = setters.current.get(field);
    if (!set) {
      set = (error) => setErrors((e) => (e[field] === error ? e : { ...e, [field]: error }));
      setters.current.set(field, set);
    }
    return set;
  }, []);
  return { errors, onError };
}

/**
 * A field whose box keeps a draft (DurationInput, SizeInput): `children` gets the box's id and
 * error callback, and the draft's error is shown on the field until the text parses.
 */
export function DraftField({
  field,
  label,
  extra,
  problems,
  drafts,
  children,
  form = TASK_FORM,
}: {
  field: string;
  label: ReactNode;
  extra?: ReactNode;
  problems: ReadonlyMap<string, string[]>;
  drafts: DraftErrors;
  children: (box: { id: string; onError: (error: string | undefined) => void }) => ReactNode;
  form?: FormIds;
}) {
  return (
    <form.Field field={field} label={label} problems={problems} local={drafts.errors[field]} extra={extra}>
      {children({ id: form.idOf(field), onError: drafts.onError(field) })}
    </form.Field>
  );
}

/** Strategy, delay and (exponential) cap of the retries; `onChange` names the field edited. */
export function RetryBackoffFields({
  backoff,
  problems,
  drafts,
  onChange,
  form = TASK_FORM,
}: {
  backoff: RetryBackoff;
  problems: ReadonlyMap<string, string[]>;
  drafts: DraftErrors;
  onChange: (next: RetryBackoff, field: string) => void;
  form?: FormIds;
}) {
  const { t } = useTranslation('designer');
  const Field = form.Field;
  return (
    <fieldset style={{ border: 0, margin: 0, padding: 0 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        {t('field.backoff')}
      </Typography.Text>
      <Flex gap={8} wrap>
        <Field field="retry_backoff.strategy" label={t('field.strategy')} problems={problems}>
          <Select
            id={form.idOf('retry_backoff.strategy')}
            value={backoff.kind}
            style={{ width: 130 }}
            options={[
              { value: 'fixed', label: t('field.strategyFixed') },
              { value: 'exponential', label: t('field.strategyExponential') },
            ]}
            onChange={(kind: RetryBackoff['kind']) =>
              onChange(
                kind === 'fixed'
                  ? { kind, delayMs: backoff.delayMs, maxDelayMs: backoff.delayMs }
                  : { kind, delayMs: backoff.delayMs, maxDelayMs: Math.max(EXPONENTIAL_MAX_MS, backoff.delayMs) },
                'strategy',
              )
            }
          />
        </Field>
        <div style={{ width: 110 }}>
          <DraftField
            field="retry_backoff.delay"
            label={t('field.delay')}
            problems={problems}
            drafts={drafts}
            form={form}
          >
            {(box) => (
              <DurationInput
                {...box}
                value={backoff.delayMs}
                onChange={(ms) =>
                  ms !== undefined &&
                  onChange(
                    { ...backoff, delayMs: ms, maxDelayMs: backoff.kind === 'fixed' ? ms : backoff.maxDelayMs },
                    'delay',
                  )
                }
              />
            )}
          </DraftField>
        </div>
        {backoff.kind === 'exponential' && (
          <div style={{ width: 110 }}>
            <DraftField
              field="retry_backoff.max"
              label={t('field.max')}
              problems={problems}
              drafts={drafts}
              form={form}
            >
              {(box) => (
                <DurationInput
                  {...box}
                  value={backoff.maxDelayMs}
                  onChange={(ms) => ms !== undefined && onChange({ ...backoff, maxDelayMs: ms }, 'max')}
                />
              )}
            </DraftField>
          </div>
        )}
      </Flex>
    </fieldset>
  );
}

/** The timeout's help line: the engine's suggestion from past runs, with a button to take it. */
export function TimeoutSuggestion({
  suggestion,
  timeoutMs,
  onUse,
}: {
  suggestion: TaskStats;
  timeoutMs: number | undefined;
  onUse: (ms: number) => void;
}) {
  const { t } = useTranslation('designer');
  return (
    <Flex gap={8} align="center" wrap data-testid="timeout-suggestion" style={{ marginTop: 4 }}>
      <BulbOutlined aria-hidden />
      <span>
        {t('field.timeoutSuggestion', {
          value: formatDuration(suggestion.suggestedTimeoutMs),
          count: suggestion.samples,
        })}
      </span>
      {timeoutMs !== suggestion.suggestedTimeoutMs && (
        <Button size="small" onClick={() => onUse(suggestion.suggestedTimeoutMs)}>
          {t('field.useSuggestion')}
        </Button>
      )}
    </Flex>
  );
}

/**
 * The task name: renamed when the user leaves the box or presses Enter, if the name is free. The
 * box stays the same element through a rename (it keeps the focus after Enter); a name changed
 * from elsewhere (undo) replaces the text, in render rather than in an effect that would
 * overwrite keys typed before it ran.
 */
export function TaskNameInput({
  name,
  onRename,
  onError,
}: {
  name: string;
  onRename: (to: string) => RenameProblem | undefined;
  onError: (e: string | undefined) => void;
}) {
  const { t } = useTranslation('designer');
  const [text, setText] = useState(name);
  const [shown, setShown] = useState(name);
  if (shown !== name) {
    setShown(name);
    setText(name);
  }
  useEffect(() => {
    onError(undefined);
  }, [onError, name]);
  const commit = () => {
    if (text === name) return onError(undefined);
    const problem = onRename(text);
    onError(problem ? t(`rename.${problem}`, { name: text }) : undefined);
  };
  return (
    <Input
      id={fieldId('name')}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onPressEnter={commit}
      spellCheck={false}
      style={mono}
    />
  );
}
