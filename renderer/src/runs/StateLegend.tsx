// What the node and bar colours mean, each with its icon and name (never colour alone), and how
// a task that has not started yet looks.
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Legend, LegendItem } from '../shared/Legend.tsx';
import { INSTANCE_STATES } from '../../../engine/api/types.ts';
import { stateStyle } from '../shared/state-style.tsx';
import { useStateLabel } from '../shared/StateTag.tsx';

export function StateLegend() {
  const { t } = useTranslation('runs');
  const { token } = theme.useToken();
  const label = useStateLabel();
  return (
    <Legend label={t('legend.label')} title={t('legend.title')} testId="state-legend">
      {INSTANCE_STATES.map((state) => {
        const style = stateStyle(state);
        const colour = token[style.token] as string;
        return (
          <LegendItem key={state}>
            <span
              aria-hidden
              style={{ display: 'inline-block', width: 4, height: 14, borderRadius: 2, background: colour }}
            />
            <style.Icon aria-hidden style={{ color: colour }} />
            <span>{label(state)}</span>
          </LegendItem>
        );
      })}
      <LegendItem>
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
      </LegendItem>
    </Legend>
  );
}
