// What the grid's colours and marks mean: each state's swatch exactly as a cell draws it.
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Legend, LegendItem } from '../shared/Legend.tsx';
import { INSTANCE_STATES } from '../../../engine/api/types.ts';
import { useStateLabel } from '../shared/StateTag.tsx';
import { stateColour, stateMark } from './cell-look.ts';

const SHOWN = INSTANCE_STATES.filter((s) => s !== 'DISPATCHED');

export function GridLegend() {
  const { t } = useTranslation('history');
  const { token } = theme.useToken();
  const label = useStateLabel();
  const swatch = {
    width: 16,
    height: 16,
    borderRadius: 3,
    fontSize: 10,
    lineHeight: '16px',
    textAlign: 'center' as const,
  };
  return (
    <Legend label={t('legend.label')} title={t('legend.title')} testId="history-legend">
      {SHOWN.map((state) => (
        <LegendItem key={state}>
          <span
            aria-hidden
            style={{ ...swatch, background: stateColour(token, state), color: '#fff', fontWeight: 700 }}
          >
            {stateMark(state)}
          </span>
          <span>{label(state)}</span>
        </LegendItem>
      ))}
      <LegendItem>
        <span aria-hidden style={{ ...swatch, color: token.colorTextQuaternary }}>
          ·
        </span>
        <span>{t('legend.notRun')}</span>
      </LegendItem>
    </Legend>
  );
}
