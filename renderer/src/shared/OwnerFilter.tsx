// "My workflows": pick an owner and the lists show only their workflows (kept on this machine by
// use-owner-filter.ts). Shown only when some workflow has an owner.
import { Flex, Select, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useOwnerFilter } from './use-owner-filter.ts';

/** The owner filter of a list of workflows: the owner in force (undefined: everyone's) and a test for a workflow name. */
export function useOwnedWorkflows(workflows: readonly { name: string; owner?: string }[] | undefined) {
  const [owner, setOwner] = useOwnerFilter();
  const owners = useMemo(
    () => [...new Set((workflows ?? []).flatMap((w) => (w.owner ? [w.owner] : [])))].sort(),
    [workflows],
  );
  // an owner no workflow has any more shows everyone's rather than empty lists
  const mine = owner !== undefined && owners.includes(owner) ? owner : undefined;
  const ownerOf = useMemo(() => new Map((workflows ?? []).map((w) => [w.name, w.owner])), [workflows]);
  const shows = useMemo(() => (name: string) => mine === undefined || ownerOf.get(name) === mine, [mine, ownerOf]);
  return { owner: mine, owners, setOwner, shows };
}

export function OwnerFilter({
  owners,
  value,
  onChange,
}: {
  owners: string[];
  value: string | undefined;
  onChange: (owner: string | undefined) => void;
}) {
  const { t } = useTranslation('common');
  if (owners.length === 0) return null;
  return (
    <Flex gap={6} align="center">
      <Typography.Text type="secondary">{t('owner.mine')}</Typography.Text>
      <Select
        allowClear
        style={{ minWidth: 160 }}
        placeholder={t('owner.everyone')}
        value={value}
        onChange={(v?: string) => onChange(v)}
        options={owners.map((o) => ({ value: o, label: o }))}
        aria-label={t('owner.mine')}
        data-testid="owner-filter"
      />
    </Flex>
  );
}
