// The workflow panel's settings every task inherits (the file's top-level env, cwd, timeout,
// retries, retry_backoff, labels), in a section that opens on its own when the workflow has any.
// An empty box means "not set here": the task's own value, or the engine's default, applies.
// Each change also moves the tasks that inherited the old value (model/task-defaults.ts).
import { Collapse, Input, InputNumber, Select, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskDefaults } from '../../../engine/api/types.ts';
import { DurationInput } from './fields/DurationInput.tsx';
import { EnvEditor } from './fields/EnvEditor.tsx';
import { mono } from './fields/mono.ts';
import { DEFAULT_BACKOFF } from './model/spec-ops.ts';
import { DraftField, type FormIds, RetryBackoffFields, useDraftErrors } from './task-fields.tsx';

export interface WorkflowDefaultsProps {
  defaults: TaskDefaults | undefined;
  problems: ReadonlyMap<string, string[]>;
  form: FormIds;
  onChange: (patch: Partial<TaskDefaults>, field: string) => void;
}

const FIELDS = [
  'env',
  'cwd',
  'timeout',
  'retries',
  'retry_backoff',
  'retry_backoff.strategy',
  'retry_backoff.delay',
  'retry_backoff.max',
  'labels',
];

export function WorkflowDefaults({ defaults, problems, form, onChange }: WorkflowDefaultsProps) {
  const { t } = useTranslation('designer');
  const drafts = useDraftErrors();
  const { Field, idOf } = form;
  const d = defaults ?? {};
  const count = Object.keys(d).length;
  const troubled = FIELDS.some((f) => problems.has(f));
  const [open, setOpen] = useState(count > 0);
  // a problem in here opens it, so the message is seen
  useEffect(() => {
    if (troubled) setOpen(true);
  }, [troubled]);
  const body = (
    <>
      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
        {t('defaults.help')}
      </Typography.Paragraph>
      <Field field="env" label={t('field.env')} problems={problems}>
        <EnvEditor
          id={idOf('env')}
          value={d.env ?? {}}
          onChange={(env) => onChange({ env: Object.keys(env).length > 0 ? env : undefined }, 'env')}
        />
      </Field>
      <Field field="cwd" label={t('field.cwd')} problems={problems}>
        <Input
          id={idOf('cwd')}
          value={d.cwd ?? ''}
          placeholder={t('defaults.cwdPlaceholder')}
          style={mono}
          onChange={(e) => onChange({ cwd: e.target.value || undefined }, 'cwd')}
        />
      </Field>
      <DraftField
        field="timeout"
        label={t('field.timeout')}
        problems={problems}
        drafts={drafts}
        form={form}
        extra={t('field.timeoutHelp')}
      >
        {(box) => (
          <DurationInput
            {...box}
            value={d.timeoutMs}
            allowEmpty
            positive
            placeholder={t('field.timeoutPlaceholder')}
            onChange={(ms) => onChange({ timeoutMs: ms }, 'timeout')}
          />
        )}
      </DraftField>
      <Field field="retries" label={t('field.retries')} problems={problems}>
        <InputNumber
          id={idOf('retries')}
          min={0}
          max={100}
          precision={0}
          value={d.retries ?? null}
          placeholder="0"
          onChange={(v) => onChange({ retries: typeof v === 'number' ? v : undefined }, 'retries')}
          style={{ width: 120 }}
        />
      </Field>
      {(d.retries ?? 0) > 0 || d.retryBackoff ? (
        <RetryBackoffFields
          backoff={d.retryBackoff ?? DEFAULT_BACKOFF}
          problems={problems}
          drafts={drafts}
          form={form}
          onChange={(retryBackoff, field) => onChange({ retryBackoff }, field)}
        />
      ) : null}
      <Field field="labels" label={t('field.labels')} problems={problems} extra={t('field.labelsHelp')}>
        <Select
          id={idOf('labels')}
          mode="tags"
          value={d.labels ?? []}
          tokenSeparators={[',', ' ']}
          open={false}
          suffixIcon={null}
          onChange={(v: string[]) => {
            const labels = v.filter((x) => x.trim() !== '');
            onChange({ labels: labels.length > 0 ? labels : undefined }, 'labels');
          }}
          placeholder={t('field.labelsPlaceholder')}
        />
      </Field>
    </>
  );
  return (
    <Collapse
      size="small"
      style={{ marginBottom: 14 }}
      activeKey={open ? ['defaults'] : []}
      onChange={(keys) => setOpen(keys.length > 0)}
      items={[
        {
          key: 'defaults',
          label: (
            <span data-testid="defaults-section">
              {t('field.defaults')}
              {count > 0 && (
                <Typography.Text type="secondary">{` · ${t('defaults.count', { count })}`}</Typography.Text>
              )}
            </span>
          ),
          children: body,
        },
      ]}
    />
  );
}
