// The designer's title bar: whether there are unsaved changes, Run now (a stored workflow, saved
// first) and Save.
import { ExclamationCircleOutlined, PlayCircleOutlined, SaveOutlined } from '@ant-design/icons';
import { App, Button, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useRunWorkflow } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';

export function DesignerHeader({
  loadedName,
  dirty,
  saving,
  onSave,
}: {
  loadedName?: string;
  dirty: boolean;
  saving: boolean;
  onSave: () => void;
}) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const run = useRunWorkflow({
    onSuccess: (record) => navigate(`/runs/${record.id}`),
    onError: (e) => void message.error(errorMessage(e)),
  });
  return (
    <PageHeader
      title={loadedName ? t('title.edit', { name: loadedName }) : t('title.new')}
      extra={
        <>
          {dirty && (
            <Tag color="warning" icon={<ExclamationCircleOutlined />} data-testid="unsaved">
              {t('save.unsavedTag')}
            </Tag>
          )}
          {loadedName && (
            <Button
              icon={<PlayCircleOutlined />}
              disabled={dirty}
              onClick={() => run.mutate({ name: loadedName })}
              title={dirty ? t('run.saveFirst') : undefined}
            >
              {t('run.now')}
            </Button>
          )}
          <Button type="primary" icon={<SaveOutlined />} loading={saving} onClick={onSave}>
            {t('save.button')}
          </Button>
        </>
      }
    />
  );
}
