// The import's options, each with what it changes in words: one workflow for all jobs (and its
// name), AX's defaults instead of cron's behaviour, output redirections dropped.
import { Checkbox, Flex, Input, Tag, Tooltip, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface ImportChoices {
  grouped: boolean;
  /** the one workflow's name, when grouped */
  group: string;
  axDefaults: boolean;
  stripRedirects: boolean;
}

/** `flag`: the same option of `ax import crontab`, which the engine's notes name */
function Option({
  checked,
  onChange,
  label,
  flag,
  help,
  children,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  flag: string;
  help: string;
  children?: ReactNode;
}) {
  return (
    <Flex vertical gap={2} style={{ flex: '1 1 280px', minWidth: 0 }}>
      <Checkbox checked={checked} onChange={(e) => onChange(e.target.checked)}>
        {label} <code className="ax-cmd">{flag}</code>
      </Checkbox>
      <Typography.Text type="secondary" style={{ fontSize: 12, paddingInlineStart: 24 }}>
        {help}
      </Typography.Text>
      {children}
    </Flex>
  );
}

export function ImportOptionsBar({
  choices,
  onChange,
  groupProblems,
  groupExists,
}: {
  choices: ImportChoices;
  onChange: (choices: ImportChoices) => void;
  groupProblems: string[];
  /** a workflow of the group's name exists: importing replaces it */
  groupExists: boolean;
}) {
  const { t } = useTranslation('import');
  const set = (patch: Partial<ImportChoices>) => onChange({ ...choices, ...patch });
  return (
    <Flex gap={16} wrap role="group" aria-label={t('options.title')}>
      <Option
        checked={choices.grouped}
        onChange={(grouped) => set({ grouped })}
        label={t('options.group')}
        flag="--group"
        help={t('options.groupHelp')}
      >
        {choices.grouped && (
          <Flex vertical gap={2} style={{ paddingInlineStart: 24, marginTop: 4 }}>
            <Flex gap={8} align="center">
              <label htmlFor="import-group-name" style={{ whiteSpace: 'nowrap' }}>
                {t('options.groupName')}
              </label>
              <Input
                id="import-group-name"
                size="small"
                value={choices.group}
                status={groupProblems.length > 0 ? 'error' : undefined}
                onChange={(e) => set({ group: e.target.value })}
                style={{ maxWidth: 240, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' }}
              />
              {groupExists && (
                <Tooltip title={t('row.replacesHelp', { name: choices.group })}>
                  <Tag color="warning" style={{ cursor: 'help' }}>
                    {t('row.replaces')}
                  </Tag>
                </Tooltip>
              )}
            </Flex>
            {groupProblems.map((p) => (
              <Typography.Text key={p} type="danger" style={{ fontSize: 12 }} role="alert">
                {p}
              </Typography.Text>
            ))}
          </Flex>
        )}
      </Option>
      <Option
        checked={choices.axDefaults}
        onChange={(axDefaults) => set({ axDefaults })}
        label={t('options.axDefaults')}
        flag="--ax-defaults"
        help={t('options.axDefaultsHelp')}
      />
      <Option
        checked={choices.stripRedirects}
        onChange={(stripRedirects) => set({ stripRedirects })}
        label={t('options.stripRedirects')}
        flag="--strip-redirects"
        help={t('options.stripRedirectsHelp')}
      />
    </Flex>
  );
}
