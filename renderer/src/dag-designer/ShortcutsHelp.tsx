// The "?" popover listing every keyboard shortcut of the designer.
import { QuestionCircleOutlined } from '@ant-design/icons';
import { Button, Popover, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export const SHORTCUTS: { keys: string[]; action: string }[] = [
  { keys: ['N'], action: 'addTask' },
  { keys: ['Delete', 'Backspace'], action: 'delete' },
  { keys: ['Ctrl+Z'], action: 'undo' },
  { keys: ['Ctrl+Shift+Z', 'Ctrl+Y'], action: 'redo' },
  { keys: ['Ctrl+S'], action: 'save' },
  { keys: ['L'], action: 'layout' },
  { keys: ['Shift+L'], action: 'flip' },
  { keys: ['F'], action: 'fit' },
  { keys: ['Tab', 'Enter'], action: 'focusNode' },
  { keys: ['Esc'], action: 'deselect' },
  { keys: ['?'], action: 'help' },
];

export function ShortcutsHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const { t } = useTranslation('designer');
  // built when opened, not on every render of the designer
  const content = () => (
    <table style={{ borderCollapse: 'collapse', maxWidth: 420 }} data-testid="shortcuts">
      <caption style={{ textAlign: 'start', paddingBottom: 6 }}>
        <Typography.Text type="secondary">{t('shortcuts.note')}</Typography.Text>
      </caption>
      <tbody>
        {SHORTCUTS.map((s) => (
          <tr key={s.action}>
            <td style={{ padding: '3px 12px 3px 0', whiteSpace: 'nowrap', verticalAlign: 'top' }}>
              {s.keys.map((k, i) => (
                <span key={k}>
                  {i > 0 && ` ${t('shortcuts.or')} `}
                  <Typography.Text keyboard>{k}</Typography.Text>
                </span>
              ))}
            </td>
            <td style={{ padding: '3px 0' }}>{t(`shortcuts.${s.action}`)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <Popover
      content={content}
      title={t('shortcuts.title')}
      trigger="click"
      open={open}
      onOpenChange={onOpenChange}
      placement="bottomRight"
    >
      <Button icon={<QuestionCircleOutlined />} aria-label={t('shortcuts.title')} title={t('shortcuts.title')} />
    </Popover>
  );
}
