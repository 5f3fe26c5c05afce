// A new password typed twice (adding a user, changing one's own): the engine's rules on the
// first field, "the two differ" on the second.
import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { passwordRules } from './user-form.ts';

export function NewPasswordFields({ name, label, extra }: { name: string; label: string; extra: string }) {
  const { t } = useTranslation('people');
  return (
    <>
      <Form.Item name={name} label={label} extra={extra} rules={passwordRules(t)}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="again"
        label={t('password.again')}
        dependencies={[name]}
        rules={[
          { required: true, message: t('password.againRequired') },
          ({ getFieldValue }) => ({
            validator: (_, value) =>
              !value || value === getFieldValue(name)
                ? Promise.resolve()
                : Promise.reject(new Error(t('password.mismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </>
  );
}
