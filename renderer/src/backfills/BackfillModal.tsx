// "Backfill…" on the workflow page: a window of dates, the workflow's params (the Run now form's
// fields), how many runs at once, whether logical times that already have a run get another, and
// a live preview from a dry run (how many runs, first … last, how many exist; over the limit it
// needs "force"). Started, it opens the backfill's page.
import { HistoryOutlined } from '@ant-design/icons';
import { App, Button, Checkbox, Col, DatePicker, Flex, Form, InputNumber, Modal, Row, Select, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { BACKFILL_FORCE_LIMIT, BACKFILL_MAX_PARALLEL, type BackfillRequest } from '../../../engine/api/backfill.ts';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import type { ParamSpec } from '../../../engine/api/types.ts';
import { useBackfillPreview, useCreateBackfill, useWorkflowSpec } from '../server-state/index.ts';
import type { Dayjs } from '../shared/day.ts';
import { errorMessage, LoadingState } from '../shared/feedback.tsx';
import { useScheduleWords } from '../shared/schedule-words.ts';
import { checkParamForm, initialParamValues, type ParamFormValues } from '../workflows/run-form/param-values.ts';
import { ParamFields } from '../workflows/run-form/ParamFields.tsx';
import { BackfillPreview } from './BackfillPreview.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

const STEPS = ['15m', '1h', '6h', '1d', '7d'] as const;

export function BackfillButton({ workflow }: { workflow: WorkflowListing }) {
  const { t } = useTranslation('workflows');
  const [open, setOpen] = useState(false);
  const can = useCan()('backfill');
  return (
    <>
      <Guarded can={can}>
        <Button icon={<HistoryOutlined />} onClick={() => setOpen(true)} data-testid="open-backfill">
          {t('action.backfill')}
        </Button>
      </Guarded>
      {open && <BackfillModal workflow={workflow} onClose={() => setOpen(false)} />}
    </>
  );
}

function BackfillModal({ workflow, onClose }: { workflow: WorkflowListing; onClose: () => void }) {
  const { t } = useTranslation('backfills');
  const spec = useWorkflowSpec(workflow.name);
  if (!spec.data && !spec.error)
    return (
      <Modal open title={t('dialog.title', { name: workflow.name })} onCancel={onClose} footer={null}>
        <LoadingState />
      </Modal>
    );
  return <BackfillForm workflow={workflow} params={spec.data?.params ?? []} onClose={onClose} />;
}

function BackfillForm({
  workflow,
  params,
  onClose,
}: {
  workflow: WorkflowListing;
  params: ParamSpec[];
  onClose: () => void;
}) {
  const { t } = useTranslation('backfills');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const [every, setEvery] = useState<string>('1d');
  const [values, setValues] = useState<ParamFormValues>(() => initialParamValues(params));
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [maxParallel, setMaxParallel] = useState(1);
  const [rerunExisting, setRerunExisting] = useState(false);
  const [force, setForce] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  const scheduled = !!workflow.schedule;
  const scheduleWords = useScheduleWords();
  const checked = checkParamForm(params, values);
  const shown: Record<string, string> = {};
  for (const [param, problem] of Object.entries(checked.problems))
    if (submitted || touched[param]) shown[param] = problem;

  const request: BackfillRequest | undefined =
    range && checked.values
      ? {
          workflow: workflow.name,
          from: range[0].startOf('day').valueOf(),
          to: range[1].endOf('day').valueOf(),
          ...(scheduled ? {} : { every }),
          ...(params.length ? { params: checked.values } : {}),
          maxParallel,
          rerunExisting,
          // the preview counts past the limit; the real request says force only when ticked
          force: true,
        }
      : undefined;
  const preview = useBackfillPreview(request);
  const plan = request ? preview.data : undefined;
  const over = (plan?.total ?? 0) > BACKFILL_FORCE_LIMIT;
  const create = useCreateBackfill({
    onSuccess: (answer) => {
      const id = answer.backfill?.id;
      void message.success(t('toast.started', { id, count: answer.total }));
      onClose();
      if (id !== undefined) navigate(`/backfills/${id}`);
    },
    onError: (error) => void message.error(errorMessage(error)),
  });
  const ready = !!request && !!plan && !preview.error && plan.total > 0 && (!over || force);

  const submit = () => {
    setSubmitted(true);
    if (!ready || !request) return;
    create.mutate({ ...request, force: over && force });
  };

  const incomplete = !range ? t('preview.pickDates') : !checked.values ? t('preview.fixParams') : undefined;

  return (
    <Modal
      open
      title={t('dialog.title', { name: workflow.name })}
      onCancel={onClose}
      onOk={submit}
      okText={t('dialog.start')}
      cancelText={t('common:action.cancel')}
      confirmLoading={create.isPending}
      okButtonProps={{ disabled: !ready, id: 'backfill-start' }}
      width={720}
      // the form scrolls inside; the preview sits by the Start button, always in view
      styles={{ body: { maxHeight: 'calc(100vh - 380px)', overflowY: 'auto', paddingInlineEnd: 8 } }}
      footer={(_, { OkBtn, CancelBtn }) => (
        <Flex vertical gap={12} style={{ textAlign: 'start' }}>
          <BackfillPreview
            plan={plan}
            error={request ? preview.error : null}
            loading={preview.isFetching}
            incomplete={incomplete}
          />
          <Flex justify="space-between" align="center" gap={8} wrap>
            <span>
              {over && (
                <Checkbox checked={force} onChange={(e) => setForce(e.target.checked)} data-testid="backfill-force">
                  {t('dialog.force', { n: plan?.total.toLocaleString() })}
                </Checkbox>
              )}
            </span>
            <Flex gap={8}>
              <CancelBtn />
              <OkBtn />
            </Flex>
          </Flex>
        </Flex>
      )}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">
        {scheduled
          ? t('dialog.introScheduled', {
              schedule: scheduleWords(workflow.schedule, workflow.scheduleText) ?? workflow.schedule?.cron,
            })
          : t('dialog.introUnscheduled')}
      </Typography.Paragraph>
      <Form layout="vertical" onFinish={submit} data-testid="backfill-form">
        <Form.Item label={t('dialog.window')} htmlFor="backfill-window" required extra={t('dialog.windowHelp')}>
          <DatePicker.RangePicker
            id={{ start: 'backfill-window', end: 'backfill-window-end' }}
            style={{ width: '100%' }}
            value={range}
            onChange={(dates) => setRange(dates && dates[0] && dates[1] ? [dates[0], dates[1]] : null)}
            placeholder={[t('dialog.from'), t('dialog.to')]}
          />
        </Form.Item>
        {!scheduled && (
          <Form.Item label={t('dialog.every')} htmlFor="backfill-every" extra={t('dialog.everyHelp')}>
            <Select
              id="backfill-every"
              value={every}
              onChange={setEvery}
              options={STEPS.map((step) => ({ value: step, label: t(`dialog.step.${step}`) }))}
            />
          </Form.Item>
        )}
        <Row gutter={16}>
          <Col xs={24} sm={10}>
            <Form.Item
              label={t('dialog.maxParallel')}
              htmlFor="backfill-max-parallel"
              extra={t('dialog.maxParallelHelp')}
            >
              <InputNumber
                id="backfill-max-parallel"
                min={1}
                max={BACKFILL_MAX_PARALLEL}
                precision={0}
                value={maxParallel}
                onChange={(n) => setMaxParallel(n ?? 1)}
              />
            </Form.Item>
          </Col>
          <Col xs={24} sm={14}>
            <Form.Item label={t('dialog.existing')} extra={t('dialog.rerunExistingHelp')}>
              <Checkbox
                checked={rerunExisting}
                onChange={(e) => setRerunExisting(e.target.checked)}
                data-testid="backfill-rerun-existing"
              >
                {t('dialog.rerunExisting')}
              </Checkbox>
            </Form.Item>
          </Col>
        </Row>
        {params.length > 0 && (
          <div role="group" aria-labelledby="backfill-params-title">
            <Typography.Title level={5} id="backfill-params-title" style={{ marginTop: 0 }}>
              {t('dialog.params')}
            </Typography.Title>
            <ParamFields
              specs={params}
              values={values}
              problems={shown}
              idPrefix="backfill-param"
              onChange={(name, value) => {
                setValues((v) => ({ ...v, [name]: value }));
                setTouched((v) => ({ ...v, [name]: true }));
              }}
            />
          </div>
        )}
      </Form>
    </Modal>
  );
}
