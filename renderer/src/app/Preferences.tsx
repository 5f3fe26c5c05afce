// Language and theme switches (header and sign-in screen). Both are labelled selects, so they
// are reachable and understandable by keyboard and screen reader.
import { BgColorsOutlined, GlobalOutlined } from '@ant-design/icons';
import { Flex, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { currentLanguage, setLanguage, type Language } from '../i18n/index.ts';
import { useTheme } from './theme-context.ts';
import type { ThemeChoice } from './theme-mode.ts';

export function Preferences() {
  const { t } = useTranslation('common');
  const theme = useTheme();
  return (
    <Flex gap={8} align="center">
      <Select<Language>
        aria-label={t('prefs.language')}
        title={t('prefs.language')}
        value={currentLanguage()}
        onChange={setLanguage}
        prefix={<GlobalOutlined aria-hidden />}
        style={{ width: 132 }}
        options={[
          { value: 'en', label: 'English' },
          { value: 'zh-CN', label: '简体中文' },
        ]}
      />
      <Select<ThemeChoice>
        aria-label={t('prefs.theme')}
        title={t('prefs.theme')}
        value={theme.choice}
        onChange={theme.setChoice}
        prefix={<BgColorsOutlined aria-hidden />}
        style={{ width: 150 }}
        options={[
          { value: 'system', label: t('prefs.themeSystem') },
          { value: 'light', label: t('prefs.themeLight') },
          { value: 'dark', label: t('prefs.themeDark') },
        ]}
      />
    </Flex>
  );
}
