// A `call:` task's target and params: the workflow as a Select of the stored ones (not this one:
// a workflow cannot call itself), then one box per param the called workflow declares (its type,
// whether it is required, its default as the placeholder). A value in the file for a param the
// workflow does not declare stays listed, marked, with a button to drop it.
import { DeleteOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Select, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ParamSpec, TaskCall } from '../../../../engine/api/types.ts';
import { useCalledWorkflow, useWorkflows } from '../../server-state/index.ts';
import { mono } from './mono.ts';

export interface CallEditorProps {
  id: string;
  /** the workflow being edited (left out of the choices) */
  self: string;
  call: TaskCall;
  onChange: (call: TaskCall) => void;
}

export function CallEditor({ id, self, call, onChange }: CallEditorProps) {
  const { t } = useTranslation('designer');
  const workflows = useWorkflows({ slow: true });
  const callee = useCalledWorkflow(call.workflow || undefined);
  const declared: ParamSpec[] = callee.data?.params ?? [];
  const given = call.params ?? {};
  const undeclared = callee.data ? Object.keys(given).filter((k) => !declared.some((p) => p.name === k)) : [];
  const options = (workflows.data ?? []).filter((w) => w.name !== self).map((w) => ({ value: w.name, label: w.name }));
  if (call.workflow && !options.some((o) => o.value === call.workflow))
    options.unshift({ value: call.workflow, label: call.workflow });

  const setParam = (name: string, value: string | undefined) => {
    const next = { ...given };
    if (value === undefined || value === '') delete next[name];
    else next[name] = value;
    // the rest of the call (its logical_time, set in YAML) stays as it is
    const { params: _params, ...rest } = call;
    onChange(Object.keys(next).length > 0 ? { ...rest, params: next } : rest);
  };

  return (
    <Flex vertical gap={8}>
      <Select
        id={id}
        showSearch
        value={call.workflow || undefined}
        placeholder={t('call.placeholder')}
        options={options}
        loading={workflows.isPending}
        data-testid="call-workflow"
        // params belong to the workflow they were written for
        onChange={(workflow: string) => onChange({ workflow })}
      />
      {call.workflow && callee.error ? (
        <Typography.Text type="warning">{t('call.unknown', { workflow: call.workflow })}</Typography.Text>
      ) : null}
      {callee.data && (
        <fieldset style={{ border: 0, margin: 0, padding: 0 }} data-testid="call-params">
          <Typography.Text strong style={{ display: 'block', marginBottom: 4 }}>
            {t('call.params', { workflow: call.workflow })}
          </Typography.Text>
          {declared.length === 0 && undeclared.length === 0 && (
            <Typography.Text type="secondary">{t('call.noParams', { workflow: call.workflow })}</Typography.Text>
          )}
          <Flex vertical gap={6}>
            {declared.map((p) => (
              <Flex key={p.name} gap={6} align="center">
                <label htmlFor={`${id}-param-${p.name}`} style={{ flex: '0 0 38%', minWidth: 0 }}>
                  <Typography.Text style={mono} ellipsis={{ tooltip: p.description ?? p.name }}>
                    {p.name}
                  </Typography.Text>{' '}
                  <Tag style={{ marginInlineEnd: 0 }}>{t(`params.types.${p.type}`)}</Tag>
                  {p.required && p.default === undefined && (
                    <Typography.Text type="danger" aria-label={t('call.required')}>
                      {' *'}
                    </Typography.Text>
                  )}
                </label>
                <Input
                  id={`${id}-param-${p.name}`}
                  value={given[p.name] ?? ''}
                  placeholder={
                    p.default !== undefined
                      ? t('call.default', { value: String(p.default) })
                      : p.type === 'enum'
                        ? (p.choices ?? []).join(' | ')
                        : t(`params.placeholder.${p.type}`)
                  }
                  style={{ flex: 1, minWidth: 0, ...mono }}
                  onChange={(e) => setParam(p.name, e.target.value)}
                />
              </Flex>
            ))}
            {undeclared.map((name) => (
              <Flex key={name} gap={6} align="center" data-testid="call-undeclared">
                <Typography.Text type="danger" style={{ flex: 1 }}>
                  {t('call.undeclared', { name, value: given[name], workflow: call.workflow })}
                </Typography.Text>
                <Button
                  type="text"
                  size="small"
                  icon={<DeleteOutlined />}
                  aria-label={t('call.drop', { name })}
                  onClick={() => setParam(name, undefined)}
                />
              </Flex>
            ))}
          </Flex>
        </fieldset>
      )}
    </Flex>
  );
}
