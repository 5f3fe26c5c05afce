// An admin's password reset: a new password for another account (its sessions and lock end).
import { Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { MIN_PASSWORD_LENGTH } from '../../../engine/api/access.ts';
import { useUpdateUser } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { passwordRules } from './user-form.ts';

export function ResetPasswordModal({
  user,
  onClose,
  onDone,
}: {
  user: string | undefined;
  onClose: () => void;
  onDone: (name: string) => void;
}) {
  const { t } = useTranslation('people');
  const [form] = Form.useForm<{ password: string }>();
  const update = useUpdateUser({ onSuccess: (record) => onDone(record.name) });
  return (
    <Modal
      open={user !== undefined}
      title={t('reset.title', { name: user })}
      okText={t('reset.submit')}
      cancelText={t('common:action.cancel')}
      confirmLoading={update.isPending}
      onOk={() => form.submit()}
      onCancel={() => {
        update.reset();
        onClose();
      }}
      destroyOnHidden
    >
      <Form<{ password: string }>
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(v) => user && update.mutate({ name: user, change: { password: v.password } })}
      >
        <Form.Item
          name="password"
          label={t('reset.password')}
          extra={t('reset.help', { min: MIN_PASSWORD_LENGTH })}
          rules={passwordRules(t)}
        >
          <Input.Password autoComplete="new-password" autoFocus />
        </Form.Item>
        {update.error && (
          <div role="alert" className="ant-form-item-explain-error">
            {errorMessage(update.error)}
          </div>
        )}
      </Form>
    </Modal>
  );
}
