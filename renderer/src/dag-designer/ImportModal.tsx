// Import a workflow file (YAML or JSON), pasted or chosen from disk. The engine checks it with
// the same parser as `ax apply`; the designer takes the spec it returns, or lists the problems.
import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Input, List, Modal, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ValidationProblem } from '../../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { useValidateWorkflow } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { mono } from './fields/mono.ts';

export function ImportModal({
  open,
  onClose,
  onImport,
}: {
  open: boolean;
  onClose: () => void;
  onImport: (spec: WorkflowSpec, warnings: string[]) => void;
}) {
  const { t } = useTranslation('designer');
  const validate = useValidateWorkflow();
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [problems, setProblems] = useState<ValidationProblem[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    setProblems([]);
    try {
      const report = await validate({ text, file: fileName });
      if (report.ok && report.spec) {
        onImport(
          report.spec,
          report.warnings.map((w) => w.message),
        );
        setText('');
        setFileName(undefined);
        onClose();
      } else setProblems(report.problems);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('import.title')}
      onCancel={onClose}
      width={720}
      okText={t('import.ok')}
      cancelText={t('action.cancel')}
      okButtonProps={{ disabled: text.trim() === '', loading: busy }}
      onOk={() => void submit()}
      destroyOnHidden
    >
      <Flex vertical gap={10}>
        <Typography.Text type="secondary">{t('import.help')}</Typography.Text>
        <Flex gap={8} align="center" wrap>
          <Button icon={<UploadOutlined />} onClick={() => fileInput.current?.click()}>
            {t('import.chooseFile')}
          </Button>
          {fileName && <Typography.Text code>{fileName}</Typography.Text>}
          <input
            ref={fileInput}
            type="file"
            accept=".yaml,.yml,.json,text/yaml,application/json"
            aria-label={t('import.chooseFile')}
            data-testid="import-file"
            style={{ display: 'none' }}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              void file.text().then((content) => {
                setText(content);
                setFileName(file.name);
              });
              e.target.value = '';
            }}
          />
        </Flex>
        <Input.TextArea
          aria-label={t('import.textLabel')}
          value={text}
          onChange={(e) => setText(e.target.value)}
          autoSize={{ minRows: 10, maxRows: 22 }}
          spellCheck={false}
          placeholder={'workflow: nightly-etl\ntasks:\n  extract:\n    command: ./extract.sh'}
          style={mono}
        />
        {error && <Alert type="error" showIcon title={error} />}
        {problems.length > 0 && (
          <Alert
            type="error"
            showIcon
            title={t('import.problems', { count: problems.length })}
            description={
              <List
                size="small"
                dataSource={problems}
                renderItem={(p) => (
                  <List.Item style={{ paddingInline: 0 }}>
                    <span style={{ overflowWrap: 'anywhere' }}>
                      {p.path && <code>{p.path}</code>} {p.message}
                    </span>
                  </List.Item>
                )}
              />
            }
          />
        )}
      </Flex>
    </Modal>
  );
}
