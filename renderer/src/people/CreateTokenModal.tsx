// New token: a name, whose (admins may make one for another account), scopes as checkboxes limited
// by that account's role, optionally one workflow, a worker id and labels for the worker scope, and
// a lifetime. The answer carries the token, which the caller shows once (TokenShownOnce).
import { Checkbox, Form, Input, Modal, Select, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  TOKEN_SCOPES,
  type CreatedToken,
  type NewTokenRequest,
  type Principal,
  type Role,
  type TokenScope,
} from '../../../engine/api/access.ts';
import { useCreateToken, useUsers, useWorkflows } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { DAY_MS, nameRules, parseNames, scopesAllowed, TOKEN_LIFETIMES_DAYS } from './user-form.ts';

interface Values {
  name: string;
  user: string;
  scopes: TokenScope[];
  workflow?: string;
  workerId?: string;
  labels?: string[];
  days: number;
}

/** the request the form's values make (worker fields only with the worker scope) */
export function tokenRequest(v: Values, me: string): NewTokenRequest {
  const worker = v.scopes.includes('worker');
  return {
    name: v.name.trim(),
    ...(v.user && v.user !== me && { user: v.user }),
    scopes: v.scopes,
    ...(v.workflow && { workflow: v.workflow }),
    ...(worker && v.workerId?.trim() && { workerId: v.workerId.trim() }),
    ...(worker && v.labels?.length && { labels: parseNames(v.labels).names }),
    expiresInMs: v.days * DAY_MS,
  };
}

export function CreateTokenModal({
  open,
  me,
  onClose,
  onCreated,
}: {
  open: boolean;
  me: Principal;
  onClose: () => void;
  onCreated: (created: CreatedToken) => void;
}) {
  const { t } = useTranslation('people');
  const [form] = Form.useForm<Values>();
  const admin = me.role === 'admin';
  const users = useUsers(open && admin);
  const workflows = useWorkflows({ slow: true });
  const owner = Form.useWatch('user', form) ?? me.user;
  const scopes = Form.useWatch('scopes', form) ?? [];
  const ownerRole: Role = owner === me.user ? me.role : (users.data?.find((u) => u.name === owner)?.role ?? 'viewer');
  const allowed = scopesAllowed(ownerRole, me.role);
  const create = useCreateToken({
    onSuccess: (created) => {
      form.resetFields();
      onCreated(created);
    },
  });
  return (
    <Modal
      open={open}
      title={t('tokens.createTitle')}
      okText={t('tokens.create')}
      cancelText={t('common:action.cancel')}
      confirmLoading={create.isPending}
      onOk={() => form.submit()}
      onCancel={() => {
        create.reset();
        onClose();
      }}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ user: me.user, scopes: ['read'], days: 90 }}
        onFinish={(v) => create.mutate(tokenRequest(v, me.user))}
        name="token-form"
        data-testid="token-form"
      >
        <Form.Item name="name" label={t('tokens.name')} rules={nameRules(t, 'token')} extra={t('tokens.nameHelp')}>
          <Input autoComplete="off" autoFocus />
        </Form.Item>
        {admin && (
          <Form.Item name="user" label={t('tokens.user')}>
            <Select
              aria-label={t('tokens.user')}
              showSearch
              options={(users.data ?? [{ name: me.user, role: me.role }]).map((u) => ({
                value: u.name,
                label: `${u.name} (${t(`role.${u.role}`)})`,
              }))}
              onChange={() => form.setFieldValue('scopes', ['read'])}
            />
          </Form.Item>
        )}
        <Form.Item
          name="scopes"
          label={t('tokens.scopes')}
          extra={t('tokens.scopesHelp', { role: t(`role.${ownerRole}`) })}
          rules={[{ required: true, type: 'array', min: 1, message: t('tokens.scopesRequired') }]}
        >
          <Checkbox.Group style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
            {TOKEN_SCOPES.map((s) => (
              <Tooltip
                key={s}
                placement="right"
                title={allowed.includes(s) ? undefined : t('tokens.scopeNotAllowed', { role: t(`role.${ownerRole}`) })}
              >
                <Checkbox value={s} disabled={!allowed.includes(s)} data-testid={`scope-${s}`}>
                  <code>{s}</code> — {t(`scope.${s}`)}
                </Checkbox>
              </Tooltip>
            ))}
          </Checkbox.Group>
        </Form.Item>
        <Form.Item name="workflow" label={t('tokens.workflow')} extra={t('tokens.workflowHelp')}>
          <Select
            allowClear
            showSearch
            aria-label={t('tokens.workflow')}
            placeholder={t('tokens.anyWorkflow')}
            options={(workflows.data ?? []).map((w) => ({ value: w.name, label: w.name }))}
          />
        </Form.Item>
        {scopes.includes('worker') && (
          <>
            <Form.Item
              name="workerId"
              label={t('tokens.workerId')}
              extra={t('tokens.workerIdHelp')}
              rules={[{ required: true, whitespace: true, message: t('tokens.workerIdRequired') }]}
            >
              <Input autoComplete="off" />
            </Form.Item>
            <Form.Item name="labels" label={t('tokens.labels')} extra={t('tokens.labelsHelp')}>
              <Select mode="tags" tokenSeparators={[',', ' ']} aria-label={t('tokens.labels')} open={false} />
            </Form.Item>
          </>
        )}
        <Form.Item name="days" label={t('tokens.expires')}>
          <Select<number>
            aria-label={t('tokens.expires')}
            options={TOKEN_LIFETIMES_DAYS.map((d) => ({ value: d, label: t('tokens.days', { count: d }) }))}
          />
        </Form.Item>
        {create.error && (
          <div role="alert" className="ant-form-item-explain-error" data-testid="token-form-error">
            {errorMessage(create.error)}
          </div>
        )}
      </Form>
    </Modal>
  );
}
