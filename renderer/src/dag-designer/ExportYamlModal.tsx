// The workflow as the same YAML `ax export` writes (the engine formats it), to copy or download.
import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Flex, Modal, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { AxError, formatProblems } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { downloadUrl } from '../graph/export-image.ts';
import { useWorkflowYaml } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function ExportYamlModal({ spec, open, onClose }: { spec: WorkflowSpec; open: boolean; onClose: () => void }) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const yaml = useWorkflowYaml(spec, open);
  const result =
    yaml && 'error' in yaml
      ? {
          text: undefined,
          error:
            yaml.error instanceof AxError && yaml.error.problems.length
              ? formatProblems(yaml.error.problems)
              : errorMessage(yaml.error),
        }
      : yaml && { text: yaml.text, error: undefined };
  const fileName = `${spec.name || 'workflow'}.yaml`;
  return (
    <Modal
      open={open}
      title={t('exportYaml.title', { file: fileName })}
      onCancel={onClose}
      width={720}
      footer={
        <Flex gap={8} justify="flex-end">
          <Button
            icon={<CopyOutlined />}
            disabled={!result?.text}
            onClick={() =>
              void navigator.clipboard.writeText(result?.text ?? '').then(
                () => message.success(t('exportYaml.copied')),
                () => message.error(t('exportYaml.copyFailed')),
              )
            }
          >
            {t('exportYaml.copy')}
          </Button>
          <Button
            type="primary"
            icon={<DownloadOutlined />}
            disabled={!result?.text}
            onClick={() => {
              const url = URL.createObjectURL(new Blob([result?.text ?? ''], { type: 'text/yaml' }));
              downloadUrl(url, fileName);
              setTimeout(() => URL.revokeObjectURL(url), 10_000);
            }}
          >
            {t('exportYaml.download')}
          </Button>
        </Flex>
      }
    >
      {!result && <Spin />}
      {result?.error && (
        <Alert
          type="error"
          showIcon
          title={t('exportYaml.invalid')}
          description={<pre style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{result.error}</pre>}
        />
      )}
      {result?.text && (
        <pre
          data-testid="yaml-export"
          tabIndex={0}
          aria-label={t('exportYaml.textLabel')}
          style={{
            maxHeight: 480,
            overflow: 'auto',
            margin: 0,
            padding: 12,
            borderRadius: 6,
            background: 'rgba(127,127,127,0.1)',
            fontSize: 12,
          }}
        >
          {result.text}
        </pre>
      )}
    </Modal>
  );
}
