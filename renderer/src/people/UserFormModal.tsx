// Add user (name, role, groups, initial password) and Edit user (role, groups) in one form: the
// same fields say the same things, and the rules are the service's (user-form.ts).
import { Form, Input, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { MIN_PASSWORD_LENGTH, type Role, type UserRecord } from '../../../engine/api/access.ts';
import { useAddUser, useGroups, useUpdateUser } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { ALL_ROLES, nameRules, parseNames } from './user-form.ts';
import { NewPasswordFields } from './NewPasswordFields.tsx';

interface Values {
  name: string;
  role: Role;
  groups: string[];
  password: string;
  again: string;
}

/** `user`: the account to edit; none: a new account */
export function UserFormModal({
  open,
  user,
  onClose,
  onDone,
}: {
  open: boolean;
  user?: UserRecord;
  onClose: () => void;
  onDone: (name: string) => void;
}) {
  const { t } = useTranslation('people');
  const [form] = Form.useForm<Values>();
  const groups = useGroups(open);
  const role = Form.useWatch('role', form) ?? user?.role ?? 'viewer';
  const done = (record: UserRecord) => {
    form.resetFields();
    onDone(record.name);
  };
  const add = useAddUser({ onSuccess: done });
  const update = useUpdateUser({ onSuccess: done });
  const pending = add.isPending || update.isPending;
  const error = add.error ?? update.error;
  const submit = (v: Values) => {
    const names = parseNames(v.groups).names;
    if (user) update.mutate({ name: user.name, change: { role: v.role, groups: names } });
    else add.mutate({ name: v.name.trim(), role: v.role, groups: names, password: v.password });
  };
  return (
    <Modal
      open={open}
      title={user ? t('users.editTitle', { name: user.name }) : t('users.addTitle')}
      okText={user ? t('users.save') : t('users.add')}
      cancelText={t('common:action.cancel')}
      confirmLoading={pending}
      onOk={() => form.submit()}
      onCancel={() => {
        add.reset();
        update.reset();
        onClose();
      }}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ role: user?.role ?? 'viewer', groups: user?.groups ?? [], name: user?.name ?? '' }}
        onFinish={submit}
        name="user-form"
        data-testid="user-form"
      >
        {!user && (
          <Form.Item name="name" label={t('users.name')} rules={nameRules(t, 'user')} extra={t('users.nameHelp')}>
            <Input autoComplete="off" autoFocus />
          </Form.Item>
        )}
        <Form.Item name="role" label={t('users.role')} extra={t(`roleHelp.${role}`)}>
          <Select<Role>
            aria-label={t('users.role')}
            options={ALL_ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))}
          />
        </Form.Item>
        <Form.Item
          name="groups"
          label={t('users.groups')}
          extra={t('users.groupsHelp')}
          rules={[
            {
              validator: (_, value: string[] | undefined) => {
                const bad = parseNames(value).bad;
                return bad.length
                  ? Promise.reject(new Error(t('name.badList', { names: bad.join(', ') })))
                  : Promise.resolve();
              },
            },
          ]}
        >
          <Select<string[]>
            mode="tags"
            aria-label={t('users.groups')}
            tokenSeparators={[',', ' ']}
            options={(groups.data ?? []).map((g) => ({ value: g.name, label: g.name }))}
          />
        </Form.Item>
        {!user && (
          <>
            <NewPasswordFields
              name="password"
              label={t('users.password')}
              extra={t('users.passwordHelp', { min: MIN_PASSWORD_LENGTH })}
            />
          </>
        )}
        {error && (
          <div role="alert" className="ant-form-item-explain-error" data-testid="user-form-error">
            {errorMessage(error)}
          </div>
        )}
      </Form>
    </Modal>
  );
}
