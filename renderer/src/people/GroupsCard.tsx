// The groups (a workflow's `owner` is one): each with its Private switch. A private group's
// workflows, runs and logs are seen only by its members and admins. A group exists once an account
// names it or an admin sets it here.
import { Card, Flex, Form, Input, Button, Switch, Table, Typography, App } from 'antd';
import { useTranslation } from 'react-i18next';
import type { GroupRecord, UserRecord } from '../../../engine/api/access.ts';
import { useGroups, useSetGroup } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { nameRules } from './user-form.ts';

/** the groups the service knows, and those only named by accounts (not private, never set) */
export function groupRows(groups: GroupRecord[], users: UserRecord[]): (GroupRecord & { members: string[] })[] {
  const byName = new Map(groups.map((g) => [g.name, { ...g, members: [] as string[] }]));
  for (const u of users)
    for (const g of u.groups) {
      const row = byName.get(g) ?? { name: g, private: false, members: [] };
      row.members.push(u.name);
      byName.set(g, row);
    }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function GroupsCard({ users }: { users: UserRecord[] }) {
  const { t } = useTranslation('people');
  const { message } = App.useApp();
  const groups = useGroups();
  const [form] = Form.useForm<{ name: string }>();
  const set = useSetGroup({
    onSuccess: (g) => void message.success(t(g.private ? 'groups.nowPrivate' : 'groups.nowShared', { name: g.name })),
    onError: (error) => void message.error(errorMessage(error)),
  });
  return (
    <Card title={t('groups.title')} size="small" data-testid="groups-card">
      <Typography.Paragraph type="secondary">{t('groups.help')}</Typography.Paragraph>
      <Table
        rowKey="name"
        size="small"
        pagination={false}
        loading={groups.isPending}
        dataSource={groupRows(groups.data ?? [], users)}
        locale={{ emptyText: t('groups.empty') }}
        columns={[
          { title: t('groups.name'), dataIndex: 'name' },
          {
            title: t('groups.members'),
            key: 'members',
            render: (_, g) => g.members.join(', ') || '—',
          },
          {
            title: t('groups.private'),
            key: 'private',
            width: 120,
            render: (_, g) => (
              <Switch
                checked={g.private}
                aria-label={t('groups.privateNamed', { name: g.name })}
                loading={set.isPending && set.variables?.name === g.name}
                onChange={(checked) => set.mutate({ name: g.name, private: checked })}
              />
            ),
          },
        ]}
      />
      <Form
        form={form}
        layout="inline"
        style={{ marginTop: 12 }}
        onFinish={(v) => set.mutate({ name: v.name.trim(), private: false }, { onSuccess: () => form.resetFields() })}
      >
        <Form.Item name="name" rules={nameRules(t, 'group')}>
          <Input placeholder={t('groups.newPlaceholder')} aria-label={t('groups.newLabel')} />
        </Form.Item>
        <Flex>
          <Button htmlType="submit" loading={set.isPending}>
            {t('groups.add')}
          </Button>
        </Flex>
      </Form>
    </Card>
  );
}
