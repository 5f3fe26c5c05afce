// The designer's title bar: whether there are unsaved changes, Run now (a stored workflow, saved
// first) and Save; each disabled, saying why, for a role (or group) that may not.
import { ExclamationCircleOutlined, PlayCircleOutlined, SaveOutlined } from '@ant-design/icons';
import { App, Button, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useRunWorkflow } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

export function DesignerHeader({
  loadedName,
  owner,
  dirty,
  saving,
  onSave,
}: {
  loadedName?: string;
  /** the owner group of the workflow being edited (editors of it may save) */
  owner?: string;
  dirty: boolean;
  saving: boolean;
  onSave: () => void;
}) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const can = useCan();
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
            <Guarded can={can('runWorkflow')}>
              <Button
                icon={<PlayCircleOutlined />}
                disabled={dirty}
                onClick={() => run.mutate({ name: loadedName })}
                title={dirty ? t('run.saveFirst') : undefined}
              >
                {t('run.now')}
              </Button>
            </Guarded>
          )}
          <Guarded can={can('apply', owner)}>
            <Button type="primary" icon={<SaveOutlined />} loading={saving} onClick={onSave}>
              {t('save.button')}
            </Button>
          </Guarded>
        </>
      }
    />
  );
}
