// Run a workflow now, optionally with an event payload (JSON, checked before it is sent: the task
// receives it in AX_EVENT_PAYLOAD).
import { CaretRightOutlined } from '@ant-design/icons';
import { Alert, App, Button, Form, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useSchedulingPause } from '../scheduling/use-scheduling.ts';
import { useWorkflowActions } from './use-workflow-actions.ts';

/** undefined when empty; the error text when it is not JSON */
export function checkPayload(text: string): { payload?: string; error?: string } {
  const trimmed = text.trim();
  if (!trimmed) return {};
  try {
    JSON.parse(trimmed);
    return { payload: trimmed };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

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
  return (
    <>
      <Button
        size={size}
        icon={<CaretRightOutlined />}
        onClick={() => setOpen(true)}
        disabled={!!disabledReason}
        title={disabledReason}
      >
        {t('action.runNow')}
      </Button>
      {open && <RunNowModal name={name} onClose={() => setOpen(false)} />}
    </>
  );
}

function RunNowModal({ name, onClose }: { name: string; onClose: () => void }) {
  const { t } = useTranslation('workflows');
  const { message } = App.useApp();
  const { run } = useWorkflowActions();
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const checked = checkPayload(text);
  const paused = useSchedulingPause();
  const submit = () => {
    setTouched(true);
    if (checked.error) return;
    run.mutate(
      { name, payload: checked.payload },
      {
        onSuccess: (record) => {
          void message.success(
            <span>
              {t('toast.started', { id: record.id })} <a href={`#/runs/${record.id}`}>{t('toast.openRun')}</a>
            </span>,
          );
          onClose();
        },
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
      okButtonProps={{ disabled: touched && !!checked.error }}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={submit}>
        <Form.Item
          label={t('runNow.payload')}
          htmlFor="run-now-payload"
          validateStatus={touched && checked.error ? 'error' : undefined}
          help={
            touched && checked.error ? (
              t('runNow.invalid', { error: checked.error })
            ) : (
              <Trans t={t} i18nKey="runNow.payloadHelp" components={{ cmd: <code className="ax-cmd" /> }} />
            )
          }
        >
          <Input.TextArea
            id="run-now-payload"
            autoFocus
            rows={6}
            value={text}
            placeholder='{"date": "2026-11-30"}'
            onChange={(e) => setText(e.target.value)}
            onBlur={() => setTouched(true)}
            style={{ fontFamily: 'ui-monospace, Menlo, Consolas, monospace' }}
          />
        </Form.Item>
        <Typography.Text type="secondary">{t('runNow.note')}</Typography.Text>
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
