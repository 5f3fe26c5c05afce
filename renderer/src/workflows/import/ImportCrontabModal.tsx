// Import from crontab: paste or drop a crontab, see what each line becomes (the engine converts
// it: its clock, its zone, the user its tasks run as), rename, untick, choose the options, import.
// The engine converts the text again on import and applies the ticked lines all or nothing; its
// problems are shown on the line they are about.
import { ImportOutlined } from '@ant-design/icons';
import { Alert, App, Button, Flex, Modal, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CrontabImportRequest } from '../../../../engine/api/import-report.ts';
import { useCrontabPreview, useImportCrontab, useWorkflows } from '../../server-state/index.ts';
import { Guarded } from '../../people/Guarded.tsx';
import { useCan } from '../../people/use-can.ts';
import { CrontabInput } from './CrontabInput.tsx';
import { commandLineCount, importRows, sortProblems } from './import-rows.ts';
import { ImportOptionsBar, type ImportChoices } from './ImportOptionsBar.tsx';
import { ImportPreviewTable } from './ImportPreviewTable.tsx';

export function ImportCrontabButton() {
  const { t } = useTranslation('import');
  const [open, setOpen] = useState(false);
  // an import creates workflows: editors (of the group it names; the engine checks that one)
  const can = useCan()('importCrontab');
  return (
    <>
      <Guarded can={can} hide>
        <Button icon={<ImportOutlined />} onClick={() => setOpen(true)}>
          {t('action.open')}
        </Button>
      </Guarded>
      {open && <ImportCrontabModal onClose={() => setOpen(false)} />}
    </>
  );
}

function ImportCrontabModal({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('import');
  const { message } = App.useApp();
  const [text, setText] = useState('');
  const [choices, setChoices] = useState<ImportChoices>({
    grouped: false,
    group: 'crontab',
    axDefaults: false,
    stripRedirects: false,
  });
  const [names, setNames] = useState<Record<number, string>>({});
  const [unticked, setUnticked] = useState<Set<number>>(new Set());
  const importer = useImportCrontab();
  const existing = new Set((useWorkflows({ slow: true }).data ?? []).map((w) => w.name));

  const request = useMemo((): CrontabImportRequest | undefined => {
    if (text.trim() === '') return undefined;
    const named = !choices.grouped && Object.keys(names).length > 0;
    return {
      text,
      ...(choices.grouped && { group: choices.group }),
      ...(choices.axDefaults && { axDefaults: true }),
      ...(choices.stripRedirects && { stripRedirects: true }),
      ...(named && { names }),
    };
  }, [text, choices, names]);
  const preview = useCrontabPreview(request);
  const report = request ? preview.report : undefined;
  const rows = report ? importRows(report) : [];
  const jobLines = report?.jobs.map((j) => j.line) ?? [];
  const ticked = new Set(jobLines.filter((l) => !unticked.has(l)));
  const problems = sortProblems(importer.error ?? (request ? preview.error : undefined));
  // an edit makes the last import's refusal stale: it is about text that is no longer there
  const edit =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      importer.reset();
      set(value);
    };

  const submit = () => {
    if (!request || ticked.size === 0) return;
    importer.mutate(
      { ...request, lines: [...ticked] },
      {
        onSuccess: (outcomes) => {
          const shown = outcomes.map((o) => (o.changed ? o.workflow : t('done.unchanged', { name: o.workflow })));
          void message.success(t('done.title', { count: outcomes.length, names: shown.join(', ') }));
          onClose();
        },
      },
    );
  };

  const skipped = report?.skipped.length ?? 0;
  return (
    <Modal
      open
      width={1180}
      style={{ top: 24 }}
      title={t('title')}
      onCancel={onClose}
      destroyOnHidden
      footer={
        <Flex justify="space-between" align="center" gap={12}>
          <Typography.Text type="secondary" aria-live="polite">
            {preview.pending && request ? t('summary.checking') : ''}
          </Typography.Text>
          <Flex gap={8}>
            <Button onClick={onClose}>{t('common:action.cancel')}</Button>
            <Button
              type="primary"
              icon={<ImportOutlined />}
              disabled={ticked.size === 0 || preview.pending || !!preview.error}
              loading={importer.isPending}
              onClick={submit}
              data-testid="import-submit"
            >
              {ticked.size === 0 ? t('action.submitNone') : t('action.submit', { count: ticked.size })}
            </Button>
          </Flex>
        </Flex>
      }
    >
      <Flex vertical gap={12}>
        <CrontabInput text={text} onText={edit(setText)} compact={!!report} />
        <ImportOptionsBar
          choices={choices}
          onChange={edit(setChoices)}
          groupProblems={problems.group}
          groupExists={choices.grouped && existing.has(choices.group)}
        />
        {problems.general.length > 0 && (
          <Alert
            type="error"
            showIcon
            role="alert"
            title={importer.error ? t('error.import') : t('error.preview')}
            description={problems.general.map((p) => (
              <div key={p}>{p}</div>
            ))}
          />
        )}
        {importer.error && problems.byLine.size > 0 && (
          <Alert
            type="error"
            showIcon
            role="alert"
            title={t('error.import')}
            description={[...problems.byLine.keys()].map((line) => (
              <div key={line}>{t('error.fixLine', { line })}</div>
            ))}
          />
        )}
        {report && report.notes.length > 0 && (
          <Alert
            type="info"
            showIcon
            title={
              <>
                <strong>{t('summary.notes')}</strong>
                <ul style={{ margin: '4px 0 0', paddingInlineStart: 18 }}>
                  {report.notes.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              </>
            }
            data-testid="import-notes"
          />
        )}
        {report && (
          <Typography.Text data-testid="import-summary">
            {report.jobs.length === 0 && skipped === 0
              ? t('summary.noJobs')
              : t('summary.counts', { jobs: report.jobs.length, lines: commandLineCount(report), skipped })}
          </Typography.Text>
        )}
        {report && rows.length > 0 && (
          <ImportPreviewTable
            rows={rows}
            ticked={ticked}
            onTicked={(lines) => {
              importer.reset();
              setUnticked(new Set(jobLines.filter((l) => !lines.includes(l))));
            }}
            names={names}
            onName={(line, name) => edit(setNames)({ ...names, [line]: name })}
            group={choices.grouped ? choices.group : undefined}
            existing={existing}
            problems={problems.byLine}
          />
        )}
      </Flex>
    </Modal>
  );
}
