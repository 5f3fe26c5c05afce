// The workflow as `ax export` writes it (the engine formats the stored spec), with a copy button.
import { CopyOutlined } from '@ant-design/icons';
import { Alert, App, Button, Flex, Spin, theme, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkflowSpec } from '../../../../engine/api/types.ts';
import { useWorkflowYaml } from '../../server-state/index.ts';
import { errorMessage } from '../../shared/feedback.tsx';

export function WorkflowYaml({ spec }: { spec: WorkflowSpec }) {
  const { t } = useTranslation('history');
  const { message } = App.useApp();
  const { token } = theme.useToken();
  const yaml = useWorkflowYaml(spec, true);
  if (!yaml) return <Spin />;
  if ('error' in yaml)
    return <Alert type="error" showIcon title={t('yaml.failed')} description={errorMessage(yaml.error)} />;
  return (
    <Flex vertical gap={8}>
      <Flex gap={8} align="center" justify="space-between" wrap>
        <Typography.Text type="secondary">{t('yaml.help', { name: spec.name })}</Typography.Text>
        <Button
          icon={<CopyOutlined />}
          data-testid="copy-yaml"
          onClick={() =>
            void navigator.clipboard.writeText(yaml.text).then(
              () => message.success(t('yaml.copied')),
              () => message.error(t('yaml.copyFailed')),
            )
          }
        >
          {t('yaml.copy')}
        </Button>
      </Flex>
      <pre
        data-testid="workflow-yaml"
        tabIndex={0}
        aria-label={t('yaml.label', { name: spec.name })}
        style={{
          maxHeight: 'max(360px, calc(100vh - 360px))',
          overflow: 'auto',
          margin: 0,
          padding: 12,
          borderRadius: 6,
          background: token.colorFillQuaternary,
          fontFamily: token.fontFamilyCode,
          fontSize: 12,
        }}
      >
        {yaml.text}
      </pre>
    </Flex>
  );
}
