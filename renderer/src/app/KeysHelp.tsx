// The "?" overlay: the app's keyboard shortcuts, laid out like the designer's (ShortcutsHelp).
import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { GLOBAL_SHORTCUTS } from './global-keys.ts';

export function KeysHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('common');
  return (
    <Modal open={open} onCancel={onClose} footer={null} title={t('keys.title')} width={460} destroyOnHidden>
      <table style={{ borderCollapse: 'collapse', width: '100%' }} data-testid="global-shortcuts">
        <caption style={{ textAlign: 'start', paddingBottom: 6, captionSide: 'top' }}>
          <Typography.Text type="secondary">{t('keys.note')}</Typography.Text>
        </caption>
        <tbody>
          {GLOBAL_SHORTCUTS.map((s) => (
            <tr key={s.action}>
              <td style={{ padding: '3px 12px 3px 0', whiteSpace: 'nowrap', verticalAlign: 'top', width: 1 }}>
                {s.keys[0]?.split(' ').map((k, i) => (
                  <span key={k + i}>
                    {i > 0 && ` ${t('keys.then')} `}
                    <Typography.Text keyboard>{k}</Typography.Text>
                  </span>
                ))}
              </td>
              <td style={{ padding: '3px 0' }}>{t(`keys.${s.action}`)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
}
