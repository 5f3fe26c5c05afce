// The header line of a run that only waits for another workflow: what it waits for, that
// workflow's run (a link) and its state, and when the wait gives up; or, when that run does not
// exist yet, a link to the workflow. useWaitText gives the same words as one string (the ghost
// node's reason).
import { ClockCircleOutlined } from '@ant-design/icons';
import { Flex, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { RunWait } from '../../../engine/api/run-views.ts';
import { useStateLabel } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

function useWaitParts() {
  const { t } = useTranslation('run-page');
  const stateLabel = useStateLabel();
  const fmt = useTimeFormat();
  return useCallback(
    (w: RunWait) => {
      const state = w.upstreamState ?? w.upstreamRunState;
      const run =
        w.upstreamRunId !== undefined
          ? t('wait.run', { id: w.upstreamRunId, state: state ? stateLabel(state).toLowerCase() : '' })
          : t('wait.noRun');
      const deadline = w.deadline !== undefined ? t('wait.deadline', { time: fmt.dateTime(w.deadline) }) : '';
      return { what: t('wait.for', { upstream: w.upstream }), run, deadline };
    },
    [t, stateLabel, fmt],
  );
}

/** "Waiting for orders.load (run #12, running) — gives up at …", in the reader's language */
export function useWaitText(): (wait: RunWait) => string {
  const parts = useWaitParts();
  return useCallback(
    (w: RunWait) => {
      const p = parts(w);
      return [`${p.what} (${p.run})`, p.deadline].filter(Boolean).join(' — ');
    },
    [parts],
  );
}

export function RunWaitLine({ wait, others }: { wait: RunWait; others: number }) {
  const { t } = useTranslation('run-page');
  const p = useWaitParts()(wait);
  const to =
    wait.upstreamRunId !== undefined
      ? `/runs/${wait.upstreamRunId}`
      : `/workflows/${encodeURIComponent(wait.upstreamWorkflow)}`;
  return (
    <Flex gap={6} align="center" wrap data-testid="run-waiting" data-upstream={wait.upstream}>
      <ClockCircleOutlined aria-hidden />
      <span>{p.what}</span>
      <span>
        (
        <Link to={to} data-testid="run-wait-link">
          {p.run}
        </Link>
        )
      </span>
      {p.deadline && <span>— {p.deadline}</span>}
      {others > 0 && <Typography.Text type="secondary">{t('wait.more', { count: others })}</Typography.Text>}
    </Flex>
  );
}
