// What an attempt wrote to $AX_OUTPUT: each key and its value, as its downstream tasks get them.
import { Card, Descriptions, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

export function InstanceOutputs({ instance }: { instance: InstanceRecord }) {
  const { t } = useTranslation('logs');
  const entries = Object.entries(instance.outputs ?? {});
  if (entries.length === 0) return null;
  return (
    <Card size="small" title={t('outputs.title')}>
      <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
        {t('outputs.hint', { task: instance.taskName.toUpperCase().replace(/[^A-Z0-9_]/g, '_') })}
      </Typography.Paragraph>
      <Descriptions
        size="small"
        column={1}
        bordered
        items={entries.map(([key, value]) => ({
          key,
          label: <Typography.Text code>{key}</Typography.Text>,
          children: (
            <Typography.Text copyable={{ text: value }} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {showBidiControls(value)}
            </Typography.Text>
          ),
        }))}
      />
    </Card>
  );
}
