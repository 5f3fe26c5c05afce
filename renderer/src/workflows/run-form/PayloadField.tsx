// The event payload of a run of an event workflow (JSON, checked before it is sent: the tasks
// receive it in AX_EVENT_PAYLOAD).
import { Form, Input } from 'antd';
import { Trans, useTranslation } from 'react-i18next';

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

export function PayloadField({
  text,
  onChange,
  error,
  onBlur,
}: {
  text: string;
  onChange: (text: string) => void;
  /** shown on the field */
  error?: string;
  onBlur: () => void;
}) {
  const { t } = useTranslation('workflows');
  return (
    <Form.Item
      label={t('runNow.payload')}
      htmlFor="run-now-payload"
      validateStatus={error ? 'error' : undefined}
      help={
        error ? (
          t('runNow.invalid', { error })
        ) : (
          <Trans t={t} i18nKey="runNow.payloadHelp" components={{ cmd: <code className="ax-cmd" /> }} />
        )
      }
    >
      <Input.TextArea
        id="run-now-payload"
        rows={4}
        value={text}
        placeholder='{"date": "2026-11-30"}'
        onChange={(e) => onChange(e.target.value)}
        onBlur={onBlur}
        style={{ fontFamily: 'ui-monospace, Menlo, Consolas, monospace' }}
      />
    </Form.Item>
  );
}
