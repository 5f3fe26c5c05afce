// The top of a failed run: which task failed first and how (its exit code or its timeout, in the
// engine's words translated), the last lines it wrote to stderr (wrapped, never cut at the pane's
// edge), and what to do next: re-run the failed tasks in this run, or run the workflow again.
import { PlayCircleOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { InstanceRecord, RunRecord } from '../../../engine/api/types.ts';
import { useStderrTail } from '../server-state/index.ts';
import { useReasonText } from '../shared/reason-text.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { firstFailed } from './run-state.ts';
import { RerunFailedButton } from './RerunFailedButton.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

/** stderr lines the banner shows */
export const STDERR_TAIL = 5;

interface Props {
  run: RunRecord;
  instances: InstanceRecord[];
  rerunFailed: { pending: boolean; start: () => Promise<unknown> };
  runAgain: { pending: boolean; start: () => Promise<unknown> };
  /** open the task's detail beside the graph */
  onOpenTask: (instance: InstanceRecord) => void;
}

export function FailureBanner({ run, instances, rerunFailed, runAgain, onOpenTask }: Props) {
  const { t } = useTranslation('run-page');
  const { token } = theme.useToken();
  const reasonText = useReasonText();
  const failed = run.state === 'FAILED' ? firstFailed(instances) : undefined;
  const tail = useStderrTail(failed?.id, STDERR_TAIL);
  const canRun = useCan()('runWorkflow');
  if (!failed) return null;
  // With a reason code the engine's reason is the whole story, in the reader's language. Without
  // one, the exit code or timeout in the reader's words, and the engine's English below when it
  // says more than the exit code (e.g. what the timeout did).
  const how = failed.reasonCode
    ? reasonText(failed)
    : failed.state === 'TIMEOUT'
      ? t('failure.timeout')
      : failed.exitCode !== undefined
        ? t('failure.exit', { code: failed.exitCode })
        : t('failure.failed');
  const reason =
    !failed.reasonCode && failed.reason !== `exit code ${failed.exitCode}` ? reasonText(failed) : undefined;
  const lines = tail.data ?? [];
  return (
    <Alert
      type="error"
      showIcon
      data-testid="failure-banner"
      data-task={failed.taskName}
      message={
        <Flex gap={8} align="baseline" wrap>
          <Typography.Text strong>{t('failure.title', { task: failed.taskName })}</Typography.Text>
          <Typography.Text data-testid="failure-how">{how}</Typography.Text>
          {failed.attempt > 1 && (
            <Typography.Text type="secondary">{t('failure.attempt', { n: failed.attempt })}</Typography.Text>
          )}
        </Flex>
      }
      description={
        <Flex vertical gap={8}>
          {reason && (
            <Typography.Text data-testid="failure-reason" style={{ whiteSpace: 'pre-wrap' }}>
              {showBidiControls(reason)}
            </Typography.Text>
          )}
          {tail.isSuccess && (
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {lines.length > 0 ? t('failure.stderr', { count: lines.length }) : t('failure.noStderr')}
              </Typography.Text>
              {lines.length > 0 && (
                <pre
                  data-testid="failure-stderr"
                  style={{
                    margin: '4px 0 0',
                    padding: '6px 8px',
                    maxHeight: 180,
                    overflow: 'auto',
                    whiteSpace: 'pre-wrap',
                    overflowWrap: 'anywhere',
                    fontSize: 12,
                    lineHeight: 1.5,
                    background: token.colorBgContainer,
                    border: `1px solid ${token.colorErrorBorder}`,
                    borderRadius: 4,
                    color: token.colorText,
                  }}
                >
                  {lines.map((l) => showBidiControls(l.line)).join('\n')}
                </pre>
              )}
            </div>
          )}
          <Flex gap={8} wrap align="center">
            <RerunFailedButton instances={instances} loading={rerunFailed.pending} onConfirm={rerunFailed.start} />
            <Guarded can={canRun}>
              <Button
                icon={<PlayCircleOutlined />}
                loading={runAgain.pending}
                onClick={() => void runAgain.start()}
                data-testid="run-again"
              >
                {t('again.action')}
              </Button>
            </Guarded>
            <Button type="link" onClick={() => onOpenTask(failed)} data-testid="failure-open-task">
              {t('failure.openTask')}
            </Button>
            <Link to={`/instances/${failed.id}`} data-testid="failure-full-log">
              {t('failure.fullLog')}
            </Link>
          </Flex>
        </Flex>
      }
    />
  );
}
