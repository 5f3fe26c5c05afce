// A task's trigger rule (`run_if:`) and precondition (`when:`) in the task form: the rule as a
// Select whose every option says in one line when the task runs, and the precondition as none, a
// comparison (with the names this task may compare: its workflow's params, its upstreams'
// outputs) or a command. Each with the engine's problems on its field.
import { Flex, Input, Radio, Select, Typography } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { RUN_IF_RULES, type RunIfRule, type TaskCondition, type TaskSpec } from '../../../engine/api/types.ts';
import { mono } from './fields/mono.ts';
import { fieldId, TaskField as Field } from './task-fields.tsx';

type Problems = ReadonlyMap<string, string[]>;

export function RunIfField({
  value,
  problems,
  onChange,
}: {
  value: RunIfRule | undefined;
  problems: Problems;
  /** undefined for the default (all_success), so the file does not spell it out */
  onChange: (rule: RunIfRule | undefined) => void;
}) {
  const { t } = useTranslation('designer');
  const rule = value ?? 'all_success';
  return (
    <Field field="run_if" label={t('field.runIf')} problems={problems} extra={t(`runIf.explain.${rule}`)}>
      <Select
        id={fieldId('run_if')}
        value={rule}
        data-testid="run-if"
        popupMatchSelectWidth={360}
        optionLabelProp="title"
        options={RUN_IF_RULES.map((r) => ({
          value: r,
          title: t(`runIf.name.${r}`),
          label: (
            <Flex vertical style={{ whiteSpace: 'normal', lineHeight: 1.35, padding: '2px 0' }}>
              <span>
                {t(`runIf.name.${r}`)} <Typography.Text code>{r}</Typography.Text>
              </span>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t(`runIf.explain.${r}`)}
              </Typography.Text>
            </Flex>
          ),
        }))}
        onChange={(r: RunIfRule) => onChange(r === 'all_success' ? undefined : r)}
      />
    </Field>
  );
}

type WhenKind = 'none' | 'expr' | 'command';
const kindOf = (when: TaskCondition | undefined): WhenKind => (!when ? 'none' : 'expr' in when ? 'expr' : 'command');

/** What a comparison on this task may read: the workflow's params and its upstreams' outputs. */
export function comparableNames(task: TaskSpec, params: readonly { name: string }[]): string[] {
  return [...params.map((p) => `params.${p.name}`), ...task.upstream.map((u) => `outputs.${u}.KEY`)];
}

export function WhenField({
  task,
  params,
  problems,
  onChange,
}: {
  task: TaskSpec;
  params: readonly { name: string }[];
  problems: Problems;
  onChange: (when: TaskCondition | undefined) => void;
}) {
  const { t } = useTranslation('designer');
  const when = task.when;
  const kind = kindOf(when);
  // the text of the other kind, kept while the user flips between them
  const kept = useRef<Record<'expr' | 'command', string>>({ expr: '', command: '' });
  if (when && 'expr' in when) kept.current.expr = when.expr;
  if (when && 'command' in when) kept.current.command = when.command;
  const names = comparableNames(task, params);
  const setKind = (next: WhenKind) =>
    onChange(
      next === 'none' ? undefined : next === 'expr' ? { expr: kept.current.expr } : { command: kept.current.command },
    );
  return (
    <Field
      field="when"
      label={t('field.when')}
      problems={problems}
      extra={
        kind === 'expr' ? (
          <span data-testid="when-hint">
            {t('when.exprHelp')}
            {names.length > 0 && (
              <>
                {' '}
                {t('when.available')}{' '}
                {names.map((n, i) => (
                  <span key={n}>
                    {i > 0 && ', '}
                    <Typography.Text code>{n}</Typography.Text>
                  </span>
                ))}
              </>
            )}
          </span>
        ) : kind === 'command' ? (
          t('when.commandHelp')
        ) : (
          t('when.noneHelp')
        )
      }
    >
      <Flex vertical gap={6}>
        <Radio.Group
          value={kind}
          optionType="button"
          size="small"
          aria-label={t('field.when')}
          options={(['none', 'expr', 'command'] as const).map((k) => ({ value: k, label: t(`when.kind.${k}`) }))}
          onChange={(e) => setKind(e.target.value as WhenKind)}
        />
        {when && 'expr' in when && (
          <Input
            id={fieldId('when')}
            aria-label={t('when.kind.expr')}
            value={when.expr}
            placeholder={t('when.exprPlaceholder')}
            spellCheck={false}
            style={mono}
            onChange={(e) => onChange({ expr: e.target.value })}
          />
        )}
        {when && 'command' in when && (
          <Input.TextArea
            id={fieldId('when')}
            aria-label={t('when.kind.command')}
            value={when.command}
            placeholder={t('when.commandPlaceholder')}
            autoSize={{ minRows: 1, maxRows: 4 }}
            spellCheck={false}
            style={mono}
            onChange={(e) => onChange({ command: e.target.value })}
          />
        )}
      </Flex>
    </Field>
  );
}
