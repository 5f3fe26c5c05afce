// The side panel's form for one task: every field of the workflow file's task, each with its
// own problems from the last validation shown on it.
import { DeleteOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input, InputNumber, Popconfirm, Select, Switch, Typography } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskStats } from '../../../engine/api/engine-api.ts';
import type { TaskSpec, WorkflowSpec } from '../../../engine/api/types.ts';
import { hasBidiControls, showBidiControls } from '../../../engine/api/bidi-text.ts';
import { DurationInput } from './fields/DurationInput.tsx';
import { CallEditor } from './fields/CallEditor.tsx';
import { EnvEditor } from './fields/EnvEditor.tsx';
import { SizeInput } from './fields/SizeInput.tsx';
import { mono } from './fields/mono.ts';
import { inheritsSetting } from './model/task-defaults.ts';
import { crossFromKeys, crossKey, isDefaultDate, refText } from './model/cross-refs.ts';
import type { RenameProblem } from './model/spec-ops.ts';
import {
  DraftField,
  fieldId,
  RetryBackoffFields,
  TaskField,
  TaskNameInput,
  TimeoutSuggestion,
  useDraftErrors,
} from './task-fields.tsx';
import { RunIfField, WhenField } from './task-rule-fields.tsx';

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

const Field = TaskField;

/** the call's problems, wherever in it they are (call.workflow, call.params), on the one field */
function mergedCallProblems(problems: ReadonlyMap<string, string[]>): ReadonlyMap<string, string[]> {
  const all = [
    ...(problems.get('call') ?? []),
    ...(problems.get('call.workflow') ?? []),
    ...(problems.get('call.params') ?? []),
  ];
  return all.length > 0 ? new Map([['call', all]]) : problems;
}

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
  const drafts = useDraftErrors();
  const backoff = task.retryBackoff;
  const others = spec.tasks.filter((x) => x.name !== task.name).map((x) => ({ value: x.name, label: x.name }));
  const whole = problems.get('');
  // the command and the call each come back when the user flips between them
  const lastCommand = useRef(task.command);
  if (!task.call) lastCommand.current = task.command;
  /** "from the workflow" under a field whose value the task inherits */
  const inherited = (key: 'cwd' | 'retries' | 'labels') =>
    inheritsSetting(task, spec.taskDefaults, key) ? (
      <span data-testid={`inherited-${key}`}>{t('defaults.inherited')}</span>
    ) : undefined;
  const lastCall = useRef(task.call);
  if (task.call) lastCall.current = task.call;

  return (
    <Form
      layout="vertical"
      onSubmitCapture={(e) => e.preventDefault()}
      aria-label={t('task.formLabel', { name: task.name })}
    >
      {whole && <Alert type="error" showIcon style={{ marginBottom: 12 }} title={whole.join(' · ')} />}
      <Field field="name" required label={t('field.name')} problems={problems} local={drafts.errors.name}>
        <TaskNameInput name={task.name} onRename={onRename} onError={drafts.onError('name')} />
      </Field>
      <Form.Item label={t('field.runsCall')} htmlFor={fieldId('runs')} style={{ marginBottom: 10 }}>
        <Switch
          id={fieldId('runs')}
          checked={task.call !== undefined}
          // a call task has no command (the file cannot hold both)
          onChange={(on) =>
            onEdit(
              on
                ? { call: lastCall.current ?? { workflow: '' }, command: '' }
                : { call: undefined, command: lastCommand.current },
              'runs',
            )
          }
        />
      </Form.Item>
      {task.call ? (
        <Field
          field="call"
          required
          label={t('field.call')}
          problems={mergedCallProblems(problems)}
          extra={t('call.help')}
        >
          <CallEditor
            id={fieldId('call')}
            self={spec.name}
            call={task.call}
            onChange={(call) => onEdit({ call }, 'call')}
          />
        </Field>
      ) : (
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
      )}
      <Field field="cwd" label={t('field.cwd')} problems={problems} extra={inherited('cwd')}>
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
      <DraftField
        field="timeout"
        label={t('field.timeout')}
        problems={problems}
        drafts={drafts}
        extra={
          suggestion && suggestion.samples > 0 ? (
            <TimeoutSuggestion
              suggestion={suggestion}
              timeoutMs={task.timeoutMs}
              onUse={(ms) => onEdit({ timeoutMs: ms }, 'timeout-suggestion')}
            />
          ) : (
            t('field.timeoutHelp')
          )
        }
      >
        {(box) => (
          <DurationInput
            {...box}
            value={task.timeoutMs}
            allowEmpty
            positive
            placeholder={t('field.timeoutPlaceholder')}
            onChange={(ms) => onEdit({ timeoutMs: ms }, 'timeout')}
          />
        )}
      </DraftField>
      <Field field="retries" label={t('field.retries')} problems={problems} extra={inherited('retries')}>
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
        <RetryBackoffFields
          backoff={backoff}
          problems={problems}
          drafts={drafts}
          onChange={(next, field) => onEdit({ retryBackoff: next }, field)}
        />
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
        <DraftField
          field="wait_timeout"
          label={t('field.waitTimeout')}
          problems={problems}
          drafts={drafts}
          extra={t('field.waitTimeoutHelp')}
        >
          {(box) => (
            <DurationInput
              {...box}
              value={task.waitTimeoutMs}
              allowEmpty
              positive
              placeholder="24h"
              onChange={(ms) => onEdit({ waitTimeoutMs: ms }, 'wait_timeout')}
            />
          )}
        </DraftField>
      )}
      <RunIfField value={task.runIf} problems={problems} onChange={(runIf) => onEdit({ runIf }, 'run_if')} />
      <WhenField
        task={task}
        params={spec.params ?? []}
        problems={problems}
        onChange={(when) => onEdit({ when }, 'when')}
      />
      <Field
        field="labels"
        label={t('field.labels')}
        problems={problems}
        extra={inherited('labels') ?? t('field.labelsHelp')}
      >
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
      <DraftField
        field="log_limit"
        label={t('field.logLimit')}
        problems={problems}
        drafts={drafts}
        extra={t('field.logLimitHelp')}
      >
        {(box) => (
          <SizeInput
            {...box}
            value={task.logLimitBytes}
            placeholder={t('field.logLimitPlaceholder')}
            onChange={(bytes) => onEdit({ logLimitBytes: bytes }, 'log_limit')}
          />
        )}
      </DraftField>
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
