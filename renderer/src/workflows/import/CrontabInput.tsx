// Where the crontab comes in: typed or pasted into the text area, dropped onto it as a file, or
// chosen with the file picker. A file over the engine's limit is refused here with what to do.
import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Input, theme, Typography, Upload } from 'antd';
import { useState, type DragEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { MAX_CRONTAB_BYTES } from '../../../../engine/api/import-report.ts';
import { readableSize } from '../../../../engine/api/size.ts';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

/** `compact`: a preview is shown below, so the text takes less room */
export function CrontabInput({
  text,
  onText,
  compact,
}: {
  text: string;
  onText: (text: string) => void;
  compact?: boolean;
}) {
  const { t } = useTranslation('import');
  const { token } = theme.useToken();
  const [over, setOver] = useState(false);
  const [fileError, setFileError] = useState<string>();

  const read = (file: File) => {
    setFileError(undefined);
    if (file.size > MAX_CRONTAB_BYTES) {
      setFileError(t('input.tooLarge', { name: file.name, size: readableSize(file.size) }));
      return;
    }
    file
      .text()
      .then(onText, (error: unknown) =>
        setFileError(t('input.unreadable', { name: file.name, error: error instanceof Error ? error.message : error })),
      );
  };
  const onDrop = (e: DragEvent) => {
    const file = e.dataTransfer.files[0];
    if (!file) return; // dropped text: the text area takes it itself
    e.preventDefault();
    setOver(false);
    read(file);
  };

  return (
    <Flex vertical gap={8}>
      <Flex justify="space-between" align="center" gap={12} wrap>
        <Typography.Text type="secondary">
          <Trans t={t} i18nKey="intro" components={{ cmd: <code className="ax-cmd" /> }} />
        </Typography.Text>
        <Upload
          accept=".txt,.crontab,text/plain,*"
          showUploadList={false}
          beforeUpload={(file) => {
            read(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />}>{t('action.pickFile')}</Button>
        </Upload>
      </Flex>
      <div
        data-testid="crontab-drop"
        onDragOver={(e) => {
          if (e.dataTransfer.types.includes('Files')) {
            e.preventDefault();
            setOver(true);
          }
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        style={{
          position: 'relative',
          borderRadius: token.borderRadiusLG,
          outline: over ? `2px dashed ${token.colorPrimary}` : undefined,
          outlineOffset: 2,
        }}
      >
        <Input.TextArea
          aria-label={t('input.label')}
          value={text}
          onChange={(e) => onText(e.target.value)}
          placeholder={t('input.placeholder')}
          autoSize={{ minRows: compact ? 3 : 6, maxRows: compact ? 6 : 14 }}
          spellCheck={false}
          style={{ fontFamily: MONO, fontSize: 13, whiteSpace: 'pre', overflowX: 'auto' }}
          data-testid="crontab-text"
        />
        {over && (
          <Flex
            justify="center"
            align="center"
            style={{
              position: 'absolute',
              inset: 0,
              background: token.colorBgMask,
              color: token.colorTextLightSolid,
              borderRadius: token.borderRadiusLG,
              pointerEvents: 'none',
              fontWeight: 500,
            }}
          >
            {t('input.drop')}
          </Flex>
        )}
      </div>
      {fileError && <Alert type="error" showIcon title={fileError} />}
    </Flex>
  );
}
