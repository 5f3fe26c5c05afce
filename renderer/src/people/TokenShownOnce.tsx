// The new token, shown once: Copy, and the warning that it cannot be shown again (only its hash is
// kept). Closing the dialog forgets it.
import { CopyOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CreatedToken } from '../../../engine/api/access.ts';

export function TokenShownOnce({ created, onClose }: { created: CreatedToken | undefined; onClose: () => void }) {
  const { t } = useTranslation('people');
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied(true);
    } catch {
      // no clipboard (plain http off localhost): the field is selected for Ctrl+C instead
      (document.getElementById('ax-new-token') as HTMLInputElement | null)?.select();
    }
  };
  return (
    <Modal
      open={created !== undefined}
      title={t('tokens.createdTitle', { name: created?.record.name })}
      onCancel={() => {
        setCopied(false);
        onClose();
      }}
      footer={
        <Button
          type="primary"
          onClick={() => {
            setCopied(false);
            onClose();
          }}
          data-testid="token-done"
        >
          {t('tokens.done')}
        </Button>
      }
      destroyOnHidden
    >
      <Flex vertical gap={12}>
        <Alert type="warning" showIcon title={t('tokens.onceWarning')} data-testid="token-once-warning" />
        <Flex gap={8}>
          <Input
            id="ax-new-token"
            readOnly
            value={created?.token ?? ''}
            aria-label={t('tokens.tokenLabel')}
            data-testid="new-token"
            style={{ fontFamily: 'monospace' }}
            onFocus={(e) => e.target.select()}
          />
          <Button icon={<CopyOutlined />} onClick={() => void copy()} data-testid="copy-token">
            {copied ? t('tokens.copied') : t('tokens.copy')}
          </Button>
        </Flex>
        <Typography.Text type="secondary">{t('tokens.useHelp')}</Typography.Text>
      </Flex>
    </Modal>
  );
}
