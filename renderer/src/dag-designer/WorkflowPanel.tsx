// The side panel's form for the workflow itself: name, description, owner, schedule (cron, zone,
// misfire, overlap, with a live preview), its params, the event that starts it, and worker routing.
import { Alert, Form, Input, Select, Switch, Typography } from 'antd';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type {
  MisfirePolicy,
  OverlapPolicy,
  RoutingStrategy,
  ScheduleSpec,
  TaskDefaults,
  WorkflowSpec,
} from '../../../engine/api/types.ts';
import { useFirePreview } from '../server-state/index.ts';
import { viewerZone } from '../shared/time.ts';
import { mono } from './fields/mono.ts';
import { ParamsEditor } from './fields/ParamsEditor.tsx';
import { problemField } from './fields/ProblemField.tsx';
import { NAME_PATTERN } from './model/spec-ops.ts';
import { SchedulePreview } from './SchedulePreview.tsx';
import { WorkflowDefaults } from './WorkflowDefaults.tsx';

export interface WorkflowPanelProps {
  spec: WorkflowSpec;
  /** the name the workflow was loaded under (undefined for a new one) */
  loadedName?: string;
  problems: ReadonlyMap<string, string[]>;
  defaultTimezone: string;
  onEdit: (patch: Partial<Omit<WorkflowSpec, 'tasks'>>, field: string) => void;
  /** a setting every task inherits changed (the tasks that inherited it follow) */
  onDefaults: (patch: Partial<TaskDefaults>, field: string) => void;
}

export function workflowFieldId(field: string): string {
  return `wf-field-${field.replace(/\./g, '-')}`;
}

function timeZones(current: string | undefined): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf;
  const list = supported ? supported('timeZone') : [viewerZone()];
  const out = new Set(['UTC', ...list]);
  if (current) out.add(current);
  return [...out];
}

const Field = problemField(workflowFieldId);
const FORM = { Field, idOf: workflowFieldId };

export function WorkflowPanel({ spec, loadedName, problems, defaultTimezone, onEdit, onDefaults }: WorkflowPanelProps) {
  const { t } = useTranslation('designer');
  const schedule = spec.schedule;
  const lastSchedule = useRef<ScheduleSpec | undefined>(schedule);
  if (schedule) lastSchedule.current = schedule;
  const zones = useMemo(() => timeZones(schedule?.timezone), [schedule?.timezone]);
  const fires = useFirePreview(schedule?.cron, schedule?.timezone);
  const setSchedule = (patch: Partial<ScheduleSpec>, field: string) =>
    schedule && onEdit({ schedule: { ...schedule, ...patch } }, field);
  const nameError =
    spec.name !== '' && !NAME_PATTERN.test(spec.name) ? t('rename.invalid', { name: spec.name }) : undefined;
  const renamed = loadedName !== undefined && spec.name !== loadedName && !nameError;
  const tasksProblems = problems.get('tasks') ?? [];
  const general = problems.get('') ?? [];

  return (
    <Form layout="vertical" onSubmitCapture={(e) => e.preventDefault()} aria-label={t('workflow.formLabel')}>
      {spec.monitor && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('workflow.monitor')}
          data-testid="monitor-note"
        />
      )}
      {[...general, ...tasksProblems].map((m) => (
        <Alert key={m} type="error" showIcon style={{ marginBottom: 12 }} title={m} data-testid="problem-tasks" />
      ))}
      <Field
        field="workflow"
        required
        label={t('field.workflowName')}
        problems={problems}
        local={nameError}
        extra={
          renamed ? (
            <Typography.Text type="warning">
              {t('workflow.renamed', { from: loadedName, to: spec.name })}
            </Typography.Text>
          ) : undefined
        }
      >
        <Input
          id={workflowFieldId('workflow')}
          value={spec.name}
          placeholder={t('field.workflowNamePlaceholder')}
          style={mono}
          spellCheck={false}
          onChange={(e) => onEdit({ name: e.target.value }, 'workflow')}
        />
      </Field>
      <Field field="description" label={t('field.description')} problems={problems}>
        <Input.TextArea
          id={workflowFieldId('description')}
          value={spec.description ?? ''}
          autoSize={{ minRows: 1, maxRows: 4 }}
          onChange={(e) => onEdit({ description: e.target.value || undefined }, 'description')}
        />
      </Field>
      <Field field="owner" label={t('field.owner')} problems={problems}>
        <Input
          id={workflowFieldId('owner')}
          value={spec.owner ?? ''}
          placeholder={t('field.ownerPlaceholder')}
          onChange={(e) => onEdit({ owner: e.target.value || undefined }, 'owner')}
        />
      </Field>
      <Form.Item label={t('field.schedule')} htmlFor={workflowFieldId('schedule')} style={{ marginBottom: 10 }}>
        <Switch
          id={workflowFieldId('schedule')}
          checked={schedule !== undefined}
          checkedChildren={t('schedule.on')}
          unCheckedChildren={t('schedule.off')}
          onChange={(on) =>
            onEdit(
              {
                schedule: on
                  ? (lastSchedule.current ?? {
                      cron: '0 2 * * *',
                      timezone: defaultTimezone,
                      misfire: 'run_once',
                      overlap: 'skip',
                    })
                  : undefined,
              },
              'schedule',
            )
          }
        />
      </Form.Item>
      {schedule && (
        <div style={{ paddingInlineStart: 12, borderInlineStart: '2px solid rgba(127,127,127,0.25)', marginBottom: 8 }}>
          <Field
            field="schedule.cron"
            label={t('field.cron')}
            problems={problems}
            local={fires.errors['schedule.cron']}
            extra={t('field.cronHelp')}
          >
            <Input
              id={workflowFieldId('schedule.cron')}
              value={schedule.cron}
              style={mono}
              spellCheck={false}
              onChange={(e) => setSchedule({ cron: e.target.value }, 'cron')}
            />
          </Field>
          <SchedulePreview preview={fires.errors['schedule.cron'] ? undefined : fires.preview} cron={schedule.cron} />
          <Field
            field="schedule.timezone"
            label={t('field.timezone')}
            problems={problems}
            local={fires.errors['schedule.timezone']}
          >
            <Select
              id={workflowFieldId('schedule.timezone')}
              showSearch
              value={schedule.timezone}
              options={zones.map((z) => ({ value: z, label: z }))}
              onChange={(timezone: string) => setSchedule({ timezone }, 'timezone')}
            />
          </Field>
          <Field field="schedule.misfire" label={t('field.misfire')} problems={problems}>
            <Select
              id={workflowFieldId('schedule.misfire')}
              value={schedule.misfire}
              onChange={(misfire: MisfirePolicy) => setSchedule({ misfire }, 'misfire')}
              options={(['run_once', 'skip', 'all'] as const).map((v) => ({ value: v, label: t(`misfire.${v}`) }))}
            />
          </Field>
          <Field field="schedule.overlap" label={t('field.overlap')} problems={problems}>
            <Select
              id={workflowFieldId('schedule.overlap')}
              value={schedule.overlap}
              onChange={(overlap: OverlapPolicy) => setSchedule({ overlap }, 'overlap')}
              options={(['skip', 'queue', 'parallel'] as const).map((v) => ({ value: v, label: t(`overlap.${v}`) }))}
            />
          </Field>
        </div>
      )}
      <Form.Item label={t('field.params')} htmlFor={workflowFieldId('params')} extra={t('params.help')}>
        <ParamsEditor
          id={workflowFieldId('params')}
          params={spec.params ?? []}
          problems={problems}
          idOf={workflowFieldId}
          onChange={(params) => onEdit({ params: params.length > 0 ? params : undefined }, 'params')}
        />
      </Form.Item>
      <WorkflowDefaults defaults={spec.taskDefaults} problems={problems} form={FORM} onChange={onDefaults} />
      <Field field="on_event" label={t('field.onEvent')} problems={problems} extra={t('field.onEventHelp')}>
        <Input
          id={workflowFieldId('on_event')}
          value={spec.onEvent ?? ''}
          placeholder={t('field.onEventPlaceholder')}
          style={mono}
          onChange={(e) => onEdit({ onEvent: e.target.value || undefined }, 'on_event')}
        />
      </Field>
      <Field field="routing" label={t('field.routing')} problems={problems}>
        <Select
          id={workflowFieldId('routing')}
          value={spec.routing}
          onChange={(routing: RoutingStrategy) => onEdit({ routing }, 'routing')}
          options={(['round_robin', 'random', 'least_busy'] as const).map((v) => ({
            value: v,
            label: t(`routing.${v}`),
          }))}
        />
      </Field>
    </Form>
  );
}
