// The user menu's Change password: the current one, then the new one twice. The engine checks the
// current password and the rules (at least MIN_PASSWORD_LENGTH characters); this form says the
// same before sending.
import { App, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { MIN_PASSWORD_LENGTH } from '../../../engine/api/access.ts';
import { useChangePassword } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { NewPasswordFields } from './NewPasswordFields.tsx';

interface Values {
  current: string;
  next: string;
  again: string;
}

export function ChangePasswordModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('people');
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const change = useChangePassword({
    onSuccess: () => {
      void message.success(t('password.changed'));
      form.resetFields();
      onClose();
    },
  });
  return (
    <Modal
      open={open}
      title={t('password.title')}
      okText={t('password.submit')}
      cancelText={t('common:action.cancel')}
      confirmLoading={change.isPending}
      onOk={() => form.submit()}
      onCancel={() => {
        change.reset();
        onClose();
      }}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(v) => change.mutate({ current: v.current, next: v.next })}
        name="change-password"
        data-testid="change-password-form"
      >
        <Form.Item
          name="current"
          label={t('password.current')}
          rules={[{ required: true, message: t('password.currentRequired') }]}
        >
          <Input.Password autoComplete="current-password" autoFocus />
        </Form.Item>
        <NewPasswordFields
          name="next"
          label={t('password.next')}
          extra={t('password.rule', { min: MIN_PASSWORD_LENGTH })}
        />
        {change.error && (
          <div role="alert" className="ant-form-item-explain-error" data-testid="change-password-error">
            {errorMessage(change.error)}
          </div>
        )}
      </Form>
    </Modal>
  );
}
