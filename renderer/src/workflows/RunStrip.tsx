// The states of a workflow's recent runs, oldest to newest, each a link to its run.
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { StateIcon, useStateLabel } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';
import { useRunStrip } from '../server-state/index.ts';

export function RunStrip({ workflow, count = 10 }: { workflow: string; count?: number }) {
  const { t } = useTranslation('workflows');
  const label = useStateLabel();
  const fmt = useTimeFormat();
  const runs = useRunStrip(workflow, count);
  if (!runs.data) return null;
  if (runs.data.length === 0) return <Typography.Text type="secondary">{t('list.noRuns')}</Typography.Text>;
  return (
    <Flex gap={4} wrap aria-label={t('list.recentRuns')} role="list">
      {[...runs.data].reverse().map((run) => (
        <Link key={run.id} to={`/runs/${run.id}`} role="listitem" style={{ display: 'inline-flex' }}>
          <StateIcon
            state={run.state}
            size={15}
            tooltip={`${t('common:run', { id: run.id })} · ${label(run.state)} · ${fmt.dateTime(run.createdAt)}`}
          />
        </Link>
      ))}
    </Flex>
  );
}
