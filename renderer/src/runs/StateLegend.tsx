// What the node and bar colours mean, each with its icon and name (never colour alone), and how
// a task that has not started yet looks.
import { Flex, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { INSTANCE_STATES } from '../../../engine/api/types.ts';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';

export function StateLegend() {
  const { t } = useTranslation('runs');
  const { token } = theme.useToken();
  const label = useStateLabel();
  return (
    <Flex
      wrap
      gap="4px 14px"
      align="center"
      role="list"
      aria-label={t('legend.label')}
      data-testid="state-legend"
      style={{ fontSize: 12 }}
    >
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('legend.title')}
      </Typography.Text>
      {INSTANCE_STATES.map((state) => {
        const style = stateStyle(state);
        const colour = token[style.token] as string;
        return (
          <Flex key={state} gap={4} align="center" role="listitem">
            <span
              aria-hidden
              style={{ display: 'inline-block', width: 4, height: 14, borderRadius: 2, background: colour }}
            />
            <style.Icon aria-hidden style={{ color: colour }} />
            <span>{label(state)}</span>
          </Flex>
        );
      })}
      <Flex gap={4} align="center" role="listitem">
        <span
          aria-hidden
          style={{
            display: 'inline-block',
            width: 14,
            height: 12,
            border: `1px solid ${token.colorBorder}`,
            borderRadius: 3,
          }}
        />
        <span>{t('legend.notStarted')}</span>
      </Flex>
    </Flex>
  );
}
