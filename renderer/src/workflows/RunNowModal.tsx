// Run a workflow now, as a form generated from its params (run-form/ParamFields.tsx): each value
// checked on its field with the engine's own rules (checkParams) before anything is sent; the
// logical time; only one task (and its downstream); the event payload for event workflows.
import { CaretRightOutlined } from '@ant-design/icons';
import { Alert, App, Button, Form, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { useSchedulingPause } from '../scheduling/use-scheduling.ts';
import { useWorkflowSpec } from '../server-state/index.ts';
import { errorMessage, LoadingState } from '../shared/feedback.tsx';
import { checkParamForm, initialParamValues, type ParamFormValues } from './run-form/param-values.ts';
import { ParamFields } from './run-form/ParamFields.tsx';
import { checkPayload, PayloadField } from './run-form/PayloadField.tsx';
import { RunTargetFields, type RunTarget } from './run-form/RunTargetFields.tsx';
import { useWorkflowActions } from './use-workflow-actions.ts';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

export { checkPayload };

export function RunNowButton({
  name,
  size,
  disabledReason,
}: {
  name: string;
  size?: 'small' | 'middle';
  disabledReason?: string;
}) {
  const { t } = useTranslation('workflows');
  const [open, setOpen] = useState(false);
  const can = useCan()('runWorkflow');
  return (
    <>
      <Guarded can={can}>
        <Button
          size={size}
          icon={<CaretRightOutlined />}
          onClick={() => setOpen(true)}
          disabled={!!disabledReason}
          title={disabledReason}
          data-testid="run-now"
        >
          {t('action.runNow')}
        </Button>
      </Guarded>
      {open && <RunNowModal name={name} onClose={() => setOpen(false)} />}
    </>
  );
}

function RunNowModal({ name, onClose }: { name: string; onClose: () => void }) {
  const { t } = useTranslation('workflows');
  const spec = useWorkflowSpec(name);
  if (!spec.data && !spec.error)
    return (
      <Modal open title={t('runNow.title', { name })} onCancel={onClose} footer={null}>
        <LoadingState />
      </Modal>
    );
  return <RunNowForm name={name} spec={spec.data} specError={spec.error} onClose={onClose} />;
}

/** "params.NAME: …" from the engine, for the field it names */
function engineProblem(error: Error, names: string[]): { param: string; message: string } | undefined {
  const match = /^params\.([^:\s]+):\s*/.exec(error.message);
  return match && names.includes(match[1] ?? '') ? { param: match[1] ?? '', message: error.message } : undefined;
}

function RunNowForm({
  name,
  spec,
  specError,
  onClose,
}: {
  name: string;
  spec?: WorkflowSpec;
  specError: Error | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('workflows');
  const { message } = App.useApp();
  const { run } = useWorkflowActions();
  const paused = useSchedulingPause();
  const params = spec?.params ?? [];
  const [values, setValues] = useState<ParamFormValues>(() => initialParamValues(params));
  const [target, setTarget] = useState<RunTarget>({ downstream: false });
  const [text, setText] = useState('');
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [fromEngine, setFromEngine] = useState<{ param: string; message: string }>();

  const checked = checkParamForm(params, values);
  const payload = checkPayload(text);
  const shown: Record<string, string> = {};
  for (const [param, problem] of Object.entries(checked.problems))
    if (submitted || touched[param]) shown[param] = problem;
  if (fromEngine && !shown[fromEngine.param]) shown[fromEngine.param] = fromEngine.message;
  const payloadError = submitted || touched[''] ? payload.error : undefined;
  const refused = submitted && (!checked.values || !!payload.error);

  const change = (param: string, value: ParamFormValues[string]) => {
    setValues((v) => ({ ...v, [param]: value }));
    setTouched((v) => ({ ...v, [param]: true }));
    if (fromEngine?.param === param) setFromEngine(undefined);
  };

  const submit = () => {
    setSubmitted(true);
    if (!checked.values || payload.error) return;
    run.mutate(
      {
        name,
        params: params.length ? checked.values : undefined,
        payload: payload.payload,
        logicalTime: target.logicalTime,
        task: target.task,
        downstream: target.task ? target.downstream : undefined,
      },
      {
        onSuccess: (record) => {
          void message.success(
            <span>
              {t('toast.started', { id: record.id })} <a href={`#/runs/${record.id}`}>{t('toast.openRun')}</a>
            </span>,
          );
          onClose();
        },
        onError: (error) =>
          setFromEngine(
            engineProblem(
              error,
              params.map((p) => p.name),
            ),
          ),
      },
    );
  };

  return (
    <Modal
      open
      title={t('runNow.title', { name })}
      onCancel={onClose}
      onOk={submit}
      okText={t('action.runNow')}
      cancelText={t('common:action.cancel')}
      confirmLoading={run.isPending}
      okButtonProps={{ disabled: refused }}
      width={params.length > 1 ? 720 : 560}
      // the form scrolls inside, so the title and Run stay in view
      styles={{ body: { maxHeight: 'calc(100vh - 260px)', overflowY: 'auto', paddingInlineEnd: 8 } }}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={submit} data-testid="run-now-form">
        {specError && (
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 12 }}
            title={t('runNow.noSpec', { error: errorMessage(specError) })}
          />
        )}
        {params.length > 0 ? (
          <div role="group" aria-labelledby="run-now-params-title" data-testid="run-now-params">
            <Typography.Title level={5} id="run-now-params-title" style={{ marginTop: 0 }}>
              {t('runNow.params')}
            </Typography.Title>
            <ParamFields specs={params} values={values} onChange={change} problems={shown} idPrefix="run-now-param" />
          </div>
        ) : (
          spec && (
            <Typography.Paragraph type="secondary" data-testid="run-now-no-params">
              {t('runNow.noParams')}
            </Typography.Paragraph>
          )
        )}
        <RunTargetFields tasks={(spec?.tasks ?? []).map((task) => task.name)} value={target} onChange={setTarget} />
        {spec?.onEvent !== undefined && (
          <PayloadField
            text={text}
            onChange={setText}
            error={payloadError}
            onBlur={() => setTouched((v) => ({ ...v, '': true }))}
          />
        )}
        <Typography.Text type="secondary">
          {target.task
            ? t(target.downstream ? 'runNow.noteTaskDownstream' : 'runNow.noteTask', { task: target.task })
            : t('runNow.note')}
        </Typography.Text>
        {paused && (
          <Alert
            type="info"
            showIcon
            style={{ marginTop: 12 }}
            title={t('scheduling:runNowNote')}
            data-testid="run-now-paused-note"
          />
        )}
      </Form>
    </Modal>
  );
}
