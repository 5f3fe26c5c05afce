// The side panel's form for one task: every field of the workflow file's task, each with its
// own problems from the last validation shown on it.
import { BulbOutlined, DeleteOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Form, Input, InputNumber, Popconfirm, Select, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskStats } from '../../../engine/api/engine-api.ts';
import type { RetryBackoff, TaskSpec, WorkflowSpec } from '../../../engine/api/types.ts';
import { hasBidiControls, showBidiControls } from '../../../engine/api/bidi-text.ts';
import { formatDuration } from '../../../engine/core/model/duration.ts';
import { DurationInput } from './fields/DurationInput.tsx';
import { EnvEditor } from './fields/EnvEditor.tsx';
import { SizeInput } from './fields/SizeInput.tsx';
import { mono } from './fields/mono.ts';
import { problemField } from './fields/ProblemField.tsx';
import { crossFromKeys, crossKey, isDefaultDate, refText } from './model/cross-refs.ts';
import { EXPONENTIAL_MAX_MS, type RenameProblem } from './model/spec-ops.ts';

export interface TaskPanelProps {
  task: TaskSpec;
  spec: WorkflowSpec;
  /** field → messages of the last validation ('' = the task as a whole) */
  problems: ReadonlyMap<string, string[]>;
  suggestion?: TaskStats;
  onEdit: (patch: Partial<Omit<TaskSpec, 'name' | 'upstream'>>, field: string) => void;
  onRename: (to: string) => RenameProblem | undefined;
  onSetUpstream: (upstream: string[]) => void;
  onDelete: () => void;
}

export function fieldId(field: string): string {
  return `task-field-${field.replace(/\./g, '-')}`;
}

const Field = problemField(fieldId);

export function TaskPanel({
  task,
  spec,
  problems,
  suggestion,
  onEdit,
  onRename,
  onSetUpstream,
  onDelete,
}: TaskPanelProps) {
  const { t } = useTranslation('designer');
  const cross = task.crossUpstream ?? [];
  const [localErrors, setLocalErrors] = useState<Record<string, string | undefined>>({});
  const setLocal = useCallback(
    (field: string) => (error: string | undefined) =>
      setLocalErrors((e) => (e[field] === error ? e : { ...e, [field]: error })),
    [],
  );
  const onNameError = useCallback((e: string | undefined) => setLocal('name')(e), [setLocal]);
  const onTimeoutError = useCallback((e: string | undefined) => setLocal('timeout')(e), [setLocal]);
  const onWaitTimeoutError = useCallback((e: string | undefined) => setLocal('wait_timeout')(e), [setLocal]);
  const onLogLimitError = useCallback((e: string | undefined) => setLocal('log_limit')(e), [setLocal]);
  const onDelayError = useCallback((e: string | undefined) => setLocal('retry_backoff.delay')(e), [setLocal]);
  const onMaxError = useCallback((e: string | undefined) => setLocal('retry_backoff.max')(e), [setLocal]);
  const backoff = task.retryBackoff;
  const setBackoff = (next: RetryBackoff, field: string) => onEdit({ retryBackoff: next }, field);
  const others = spec.tasks.filter((x) => x.name !== task.name).map((x) => ({ value: x.name, label: x.name }));
  const whole = problems.get('');

  return (
    <Form
      layout="vertical"
      onSubmitCapture={(e) => e.preventDefault()}
      aria-label={t('task.formLabel', { name: task.name })}
    >
      {whole && <Alert type="error" showIcon style={{ marginBottom: 12 }} title={whole.join(' · ')} />}
      <Field field="name" required label={t('field.name')} problems={problems} local={localErrors.name}>
        <NameInput name={task.name} onRename={onRename} onError={onNameError} />
      </Field>
      <Field field="command" required label={t('field.command')} problems={problems}>
        <Input.TextArea
          id={fieldId('command')}
          value={task.command}
          placeholder={t('field.commandPlaceholder')}
          autoSize={{ minRows: 2, maxRows: 8 }}
          spellCheck={false}
          style={mono}
          onChange={(e) => onEdit({ command: e.target.value }, 'command')}
        />
        {/* The box shows the command reordered by its bidi controls; this line shows what runs. */}
        {hasBidiControls(task.command) && (
          <Typography.Text type="warning" data-testid="command-bidi" style={{ display: 'block', marginTop: 4 }}>
            {t('field.commandBidi', { shown: showBidiControls(task.command) })}
          </Typography.Text>
        )}
      </Field>
      <Field field="cwd" label={t('field.cwd')} problems={problems}>
        <Input
          id={fieldId('cwd')}
          value={task.cwd ?? ''}
          placeholder={t('field.cwdPlaceholder')}
          style={mono}
          onChange={(e) => onEdit({ cwd: e.target.value || undefined }, 'cwd')}
        />
      </Field>
      <Field field="env" label={t('field.env')} problems={problems}>
        <EnvEditor id={fieldId('env')} value={task.env} onChange={(env) => onEdit({ env }, 'env')} />
      </Field>
      <Field
        field="timeout"
        label={t('field.timeout')}
        problems={problems}
        local={localErrors.timeout}
        extra={
          suggestion && suggestion.samples > 0 ? (
            <Flex gap={8} align="center" wrap data-testid="timeout-suggestion" style={{ marginTop: 4 }}>
              <BulbOutlined aria-hidden />
              <span>
                {t('field.timeoutSuggestion', {
                  value: formatDuration(suggestion.suggestedTimeoutMs),
                  count: suggestion.samples,
                })}
              </span>
              {task.timeoutMs !== suggestion.suggestedTimeoutMs && (
                <Button
                  size="small"
                  onClick={() => onEdit({ timeoutMs: suggestion.suggestedTimeoutMs }, 'timeout-suggestion')}
                >
                  {t('field.useSuggestion')}
                </Button>
              )}
            </Flex>
          ) : (
            t('field.timeoutHelp')
          )
        }
      >
        <DurationInput
          id={fieldId('timeout')}
          value={task.timeoutMs}
          allowEmpty
          positive
          placeholder={t('field.timeoutPlaceholder')}
          onChange={(ms) => onEdit({ timeoutMs: ms }, 'timeout')}
          onError={onTimeoutError}
        />
      </Field>
      <Field field="retries" label={t('field.retries')} problems={problems}>
        <InputNumber
          id={fieldId('retries')}
          min={0}
          max={100}
          precision={0}
          value={task.retries}
          onChange={(v) => onEdit({ retries: typeof v === 'number' ? v : 0 }, 'retries')}
          style={{ width: 120 }}
        />
      </Field>
      {task.retries > 0 || backoff.kind !== 'fixed' || backoff.delayMs !== 10_000 ? (
        <fieldset style={{ border: 0, margin: 0, padding: 0 }}>
          <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
            {t('field.backoff')}
          </Typography.Text>
          <Flex gap={8} wrap>
            <Field field="retry_backoff.strategy" label={t('field.strategy')} problems={problems}>
              <Select
                id={fieldId('retry_backoff.strategy')}
                value={backoff.kind}
                style={{ width: 130 }}
                options={[
                  { value: 'fixed', label: t('field.strategyFixed') },
                  { value: 'exponential', label: t('field.strategyExponential') },
                ]}
                onChange={(kind: RetryBackoff['kind']) =>
                  setBackoff(
                    kind === 'fixed'
                      ? { kind, delayMs: backoff.delayMs, maxDelayMs: backoff.delayMs }
                      : { kind, delayMs: backoff.delayMs, maxDelayMs: Math.max(EXPONENTIAL_MAX_MS, backoff.delayMs) },
                    'strategy',
                  )
                }
              />
            </Field>
            <div style={{ width: 110 }}>
              <Field
                field="retry_backoff.delay"
                label={t('field.delay')}
                problems={problems}
                local={localErrors['retry_backoff.delay']}
              >
                <DurationInput
                  id={fieldId('retry_backoff.delay')}
                  value={backoff.delayMs}
                  onChange={(ms) =>
                    ms !== undefined &&
                    setBackoff(
                      { ...backoff, delayMs: ms, maxDelayMs: backoff.kind === 'fixed' ? ms : backoff.maxDelayMs },
                      'delay',
                    )
                  }
                  onError={onDelayError}
                />
              </Field>
            </div>
            {backoff.kind === 'exponential' && (
              <div style={{ width: 110 }}>
                <Field
                  field="retry_backoff.max"
                  label={t('field.max')}
                  problems={problems}
                  local={localErrors['retry_backoff.max']}
                >
                  <DurationInput
                    id={fieldId('retry_backoff.max')}
                    value={backoff.maxDelayMs}
                    onChange={(ms) => ms !== undefined && setBackoff({ ...backoff, maxDelayMs: ms }, 'max')}
                    onError={onMaxError}
                  />
                </Field>
              </div>
            )}
          </Flex>
        </fieldset>
      ) : null}
      <Field field="upstream" label={t('field.upstream')} problems={problems} extra={t('field.upstreamHelp')}>
        <Select
          id={fieldId('upstream')}
          mode="multiple"
          value={task.upstream}
          options={others}
          onChange={(v: string[]) => onSetUpstream(v)}
          placeholder={t('field.upstreamPlaceholder')}
          allowClear
        />
      </Field>
      <Form.Item
        label={t('field.crossUpstream')}
        htmlFor={fieldId('crossUpstream')}
        extra={t('field.crossUpstreamHelp')}
      >
        <Select
          id={fieldId('crossUpstream')}
          mode="tags"
          value={cross.map(crossKey)}
          options={cross.map((u) => ({
            value: crossKey(u),
            label: isDefaultDate(u.date) ? refText(u) : `${refText(u)} (${t(`date.${u.date}`)})`,
          }))}
          tokenSeparators={[',', ' ']}
          open={false}
          suffixIcon={null}
          onChange={(keys: string[]) => {
            const next = crossFromKeys(cross, keys);
            onEdit(
              {
                crossUpstream: next.length > 0 ? next : undefined,
                ...(next.length === 0 && { waitTimeoutMs: undefined }),
              },
              'upstream',
            );
          }}
          placeholder={t('field.crossUpstreamPlaceholder')}
          data-testid="cross-upstream"
        />
      </Form.Item>
      {cross.length > 0 && (
        <Field
          field="wait_timeout"
          label={t('field.waitTimeout')}
          problems={problems}
          local={localErrors.wait_timeout}
          extra={t('field.waitTimeoutHelp')}
        >
          <DurationInput
            id={fieldId('wait_timeout')}
            value={task.waitTimeoutMs}
            allowEmpty
            positive
            placeholder="24h"
            onChange={(ms) => onEdit({ waitTimeoutMs: ms }, 'wait_timeout')}
            onError={onWaitTimeoutError}
          />
        </Field>
      )}
      <Field field="labels" label={t('field.labels')} problems={problems} extra={t('field.labelsHelp')}>
        <Select
          id={fieldId('labels')}
          mode="tags"
          value={task.labels}
          tokenSeparators={[',', ' ']}
          open={false}
          suffixIcon={null}
          onChange={(v: string[]) => onEdit({ labels: v.filter((x) => x.trim() !== '') }, 'labels')}
          placeholder={t('field.labelsPlaceholder')}
        />
      </Field>
      <Field field="owner" label={t('field.taskOwner')} problems={problems}>
        <Input
          id={fieldId('owner')}
          value={task.owner ?? ''}
          onChange={(e) => onEdit({ owner: e.target.value || undefined }, 'owner')}
          placeholder={t('field.ownerPlaceholder')}
        />
      </Field>
      <Field
        field="log_limit"
        label={t('field.logLimit')}
        problems={problems}
        local={localErrors.log_limit}
        extra={t('field.logLimitHelp')}
      >
        <SizeInput
          id={fieldId('log_limit')}
          value={task.logLimitBytes}
          placeholder={t('field.logLimitPlaceholder')}
          onChange={(bytes) => onEdit({ logLimitBytes: bytes }, 'log_limit')}
          onError={onLogLimitError}
        />
      </Field>
      <Popconfirm
        title={t('task.deleteConfirm', { name: task.name })}
        okText={t('task.delete')}
        cancelText={t('action.cancel')}
        okButtonProps={{ danger: true }}
        onConfirm={onDelete}
      >
        <Button danger icon={<DeleteOutlined />}>
          {t('task.delete')}
        </Button>
      </Popconfirm>
    </Form>
  );
}

/**
 * The task name: renamed when the user leaves the box or presses Enter, if the name is free. The
 * box stays the same element through a rename (it keeps the focus after Enter); a name changed
 * from elsewhere (undo) replaces the text, in render rather than in an effect that would
 * overwrite keys typed before it ran.
 */
function NameInput({
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
