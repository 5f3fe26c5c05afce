// The preview: one row per command line of the crontab. An importable line has its tick, its
// workflow name to edit, its schedule in words, its next fires (all of them, cron's and AX's side
// by side, on hover) and its warnings; a line that will not import is greyed, cannot be ticked,
// and says why.
import { StopOutlined, WarningOutlined } from '@ant-design/icons';
import { Flex, Input, Table, Tag, theme, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useTranslation } from 'react-i18next';
import type { ImportedJob } from '../../../../engine/api/import-report.ts';
import { useScheduleWords } from '../../shared/schedule-words.ts';
import { formatDateTime } from '../../shared/time.ts';
import type { ImportRow } from './import-rows.ts';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
const SHOWN_FIRES = 2;

export interface PreviewTableProps {
  rows: ImportRow[];
  ticked: Set<number>;
  onTicked: (lines: number[]) => void;
  /** what the person typed per line (else the report's name) */
  names: Record<number, string>;
  onName: (line: number, name: string) => void;
  /** grouping into this workflow: the rows name tasks, not workflows */
  group?: string;
  /** workflows that exist already: importing one of these names replaces it */
  existing: Set<string>;
  /** the engine's problems by line */
  problems: Map<number, string[]>;
}

function Fires({ job }: { job: ImportedJob }) {
  const { t, i18n } = useTranslation('import');
  if (job.axFires.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
  // in the job's own zone, as the crontab's fields read
  const at = (ms: number) => formatDateTime(ms, i18n.language, { timeZone: job.timezone, seconds: false });
  const all = (
    <div>
      <div style={{ marginBottom: 4 }}>{t('row.allFires', { count: job.axFires.length })}</div>
      <table style={{ borderSpacing: '12px 0', marginInlineStart: -12 }}>
        <thead>
          <tr>
            <th style={{ textAlign: 'start' }}>{t('row.cronSide')}</th>
            <th style={{ textAlign: 'start' }}>{t('row.axSide')}</th>
          </tr>
        </thead>
        <tbody>
          {job.axFires.map((ms, i) => (
            <tr key={ms}>
              <td>{job.sourceFires[i] === undefined ? '—' : at(job.sourceFires[i])}</td>
              <td>{at(ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {job.timezone && <div style={{ marginTop: 4 }}>{job.timezone}</div>}
    </div>
  );
  return (
    <Tooltip title={all} styles={{ root: { maxWidth: 420 } }}>
      <Flex vertical gap={0} data-testid={`fires-${job.line}`} style={{ cursor: 'help' }}>
        {job.axFires.slice(0, SHOWN_FIRES).map((ms) => (
          <time key={ms} dateTime={new Date(ms).toISOString()} style={{ whiteSpace: 'nowrap' }}>
            {at(ms)}
          </time>
        ))}
        {job.axFires.length > SHOWN_FIRES && <Typography.Text type="secondary">…</Typography.Text>}
      </Flex>
    </Tooltip>
  );
}

export function ImportPreviewTable(props: PreviewTableProps) {
  const { rows, ticked, onTicked, names, onName, group, existing, problems } = props;
  const { t } = useTranslation('import');
  const words = useScheduleWords();
  const { token } = theme.useToken();
  const skippedCell = (row: ImportRow) => ({ colSpan: row.kind === 'skipped' ? 0 : 1 });

  const columns: ColumnsType<ImportRow> = [
    {
      title: t('col.line'),
      key: 'line',
      width: '30%',
      render: (_, row) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('row.lineNo', { line: row.line })}
          </Typography.Text>
          <Typography.Text
            type={row.kind === 'skipped' ? 'secondary' : undefined}
            style={{ fontFamily: MONO, fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
          >
            {row.text}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: group ? t('col.task', { group }) : t('col.workflow'),
      key: 'workflow',
      width: '19%',
      onCell: (row) => ({ colSpan: row.kind === 'skipped' ? 4 : 1 }),
      render: (_, row) => {
        if (row.kind === 'skipped')
          return (
            <Typography.Text type="secondary" data-testid={`skipped-${row.line}`}>
              <StopOutlined aria-hidden /> <strong>{t('row.notImported')}</strong> {row.reason}
            </Typography.Text>
          );
        const errors = problems.get(row.line) ?? [];
        if (group) return <Typography.Text style={{ fontFamily: MONO }}>{row.job.task}</Typography.Text>;
        const name = names[row.line] ?? row.job.workflow;
        return (
          <Flex vertical gap={4}>
            <Input
              size="small"
              aria-label={t('row.nameLabel', { line: row.line })}
              value={name}
              status={errors.length > 0 ? 'error' : undefined}
              onChange={(e) => onName(row.line, e.target.value)}
              style={{ fontFamily: MONO }}
            />
            {existing.has(name) && (
              <Tooltip title={t('row.replacesHelp', { name })}>
                <Tag color="warning" style={{ width: 'fit-content', cursor: 'help' }}>
                  {t('row.replaces')}
                </Tag>
              </Tooltip>
            )}
            {errors.map((e) => (
              <Typography.Text key={e} type="danger" style={{ fontSize: 12 }} role="alert">
                {e}
              </Typography.Text>
            ))}
          </Flex>
        );
      },
    },
    {
      title: t('col.schedule'),
      key: 'schedule',
      width: '20%',
      onCell: skippedCell,
      render: (_, row) =>
        row.kind === 'job' &&
        (row.job.cron ? (
          <Flex vertical gap={2}>
            <Typography.Text>
              {words({ cron: row.job.cron, timezone: row.job.timezone ?? 'UTC' }, row.job.scheduleText)}
            </Typography.Text>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              <code style={{ whiteSpace: 'nowrap' }}>{row.job.cron}</code>
            </Typography.Text>
          </Flex>
        ) : (
          <Typography.Text>{t('row.atEngineStart')}</Typography.Text>
        )),
    },
    {
      title: t('col.fires'),
      key: 'fires',
      width: 150,
      onCell: skippedCell,
      render: (_, row) => row.kind === 'job' && <Fires job={row.job} />,
    },
    {
      title: t('col.notes'),
      key: 'notes',
      onCell: skippedCell,
      render: (_, row) =>
        row.kind === 'job' && (
          <Flex vertical gap={4}>
            {row.job.warnings.map((w) => (
              // the darker warning text: the plain warning colour is faint on a ticked row's tint
              <Typography.Text key={w} style={{ fontSize: 12, color: token.colorWarningText }}>
                <WarningOutlined aria-hidden /> {w}
              </Typography.Text>
            ))}
          </Flex>
        ),
    },
  ];

  return (
    <Table<ImportRow>
      size="small"
      rowKey="line"
      dataSource={rows}
      columns={columns}
      pagination={false}
      tableLayout="fixed"
      scroll={{ y: 420 }}
      data-testid="import-preview"
      onRow={(row) => ({ 'data-kind': row.kind }) as React.HTMLAttributes<HTMLElement>}
      rowSelection={{
        selectedRowKeys: [...ticked],
        onChange: (keys) => onTicked(keys.map(Number)),
        getCheckboxProps: (row) => ({
          disabled: row.kind === 'skipped',
          'aria-label': t('row.tick', { line: row.line }),
        }),
      }}
    />
  );
}
