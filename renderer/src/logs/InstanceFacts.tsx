// What is known about one attempt: where it ran, how it ended, and its life step by step.
import { Card, Descriptions, Steps, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { pendingStep, stateHistory } from './state-history.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { useReasonText } from '../shared/reason-text.ts';

export function InstanceFacts({ instance, run }: { instance: InstanceRecord; run?: RunRecord }) {
  const { t } = useTranslation('logs');
  const fmt = useTimeFormat();
  const live = instance.finishedAt === undefined && instance.startedAt !== undefined;
  const now = useNow(live ? 1000 : 60_000);
  const ran = instance.startedAt !== undefined ? (instance.finishedAt ?? now) - instance.startedAt : undefined;
  const dash = <Typography.Text type="secondary">—</Typography.Text>;
  const reasonText = useReasonText();
  const reason = reasonText(instance);
  return (
    <Card size="small" title={t('facts.title')}>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, lg: 3 }}
        items={[
          { key: 'state', label: t('facts.state'), children: <StateTag state={instance.state} /> },
          {
            key: 'run',
            label: t('facts.run'),
            children: (
              <Link to={`/runs/${instance.runId}`}>
                {t('common:run', { id: instance.runId })}
                {run ? ` · ${run.workflowName}` : ''}
              </Link>
            ),
          },
          { key: 'attempt', label: t('facts.attempt'), children: instance.attempt },
          { key: 'exit', label: t('facts.exitCode'), children: instance.exitCode ?? dash },
          { key: 'duration', label: t('facts.duration'), children: ran !== undefined ? fmt.duration(ran) : dash },
          {
            key: 'worker',
            label: t('facts.worker'),
            children: instance.workerId ? <Typography.Text code>{instance.workerId}</Typography.Text> : dash,
          },
          { key: 'pid', label: t('facts.pid'), children: instance.pid ?? dash },
          { key: 'instance', label: t('facts.instance'), children: `#${instance.id}` },
          ...(reason
            ? [
                {
                  key: 'reason',
                  label: t('facts.reason'),
                  span: 'filled' as const,
                  children: (
                    <Typography.Text style={{ whiteSpace: 'pre-wrap' }} data-testid="instance-reason">
                      {showBidiControls(reason)}
                    </Typography.Text>
                  ),
                },
              ]
            : []),
        ]}
      />
      <StateHistory instance={instance} />
    </Card>
  );
}

function StateHistory({ instance }: { instance: InstanceRecord }) {
  const { t } = useTranslation('logs');
  const fmt = useTimeFormat();
  const history = stateHistory(instance);
  const next = pendingStep(instance);
  const failed = ['FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED'].includes(instance.state);
  const items = history.map((h, i) => ({
    key: h.step,
    title:
      h.step === 'finished'
        ? t('history.finishedAs', { state: t(`common:state.${instance.state}`) })
        : t(`history.${h.step}`),
    content: (
      <span>
        <When ms={h.at} />
        {h.sincePrevious !== undefined && (
          <Typography.Text type="secondary" style={{ display: 'block' }}>
            {t('history.after', { d: fmt.duration(h.sincePrevious) })}
          </Typography.Text>
        )}
      </span>
    ),
    status: (i === history.length - 1 && h.step === 'finished' && failed ? 'error' : 'finish') as 'error' | 'finish',
  }));
  if (next)
    items.push({
      key: next,
      title: t(`history.${next}`),
      content: <Typography.Text type="secondary">{t('history.pending')}</Typography.Text>,
      status: 'process' as 'finish',
    });
  return (
    <div style={{ marginTop: 12 }}>
      <Typography.Title level={2} style={{ fontSize: 14, marginTop: 0 }}>
        {t('history.title')}
      </Typography.Title>
      <Steps size="small" items={items} current={items.length - 1} aria-label={t('history.title')} />
    </div>
  );
}
