// The box around the canvas: the too-large filter, a failed layout, the canvas itself (a spinner
// until the first layout) and the hint on an empty one.
import { Alert, Flex, Spin, theme, Typography } from 'antd';
import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { DesignerCanvas, type DesignerCanvasProps } from './DesignerCanvas.tsx';

interface Props {
  height: string;
  /** the too-large path's filter, above the canvas */
  filter?: ReactNode;
  layoutError?: string;
  ready: boolean;
  empty: boolean;
  box: RefObject<HTMLDivElement | null>;
  canvas: DesignerCanvasProps;
}

export function DesignerCanvasArea({ height, filter, layoutError, ready, empty, box, canvas }: Props) {
  const { t } = useTranslation('designer');
  const { token } = theme.useToken();
  return (
    <div
      style={{
        flex: 1,
        minWidth: 0,
        height,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        overflow: 'hidden',
        position: 'relative',
        display: 'flex',
        flexDirection: 'column',
      }}
    >
      {filter}
      {layoutError && <Alert type="error" showIcon title={t('layoutFailed', { error: layoutError })} />}
      <div ref={box} style={{ flex: 1, minHeight: 0, position: 'relative' }}>
        {ready ? (
          <DesignerCanvas {...canvas} />
        ) : (
          <Flex justify="center" align="center" style={{ height: '100%' }}>
            <Spin description={t('layingOut')} />
          </Flex>
        )}
        {empty && ready && (
          <Flex justify="center" style={{ position: 'absolute', top: 24, left: 0, right: 0, pointerEvents: 'none' }}>
            <Typography.Text
              type="secondary"
              style={{ background: token.colorBgContainer, padding: '6px 12px', borderRadius: 6 }}
            >
              {t('emptyCanvas')}
            </Typography.Text>
          </Flex>
        )}
      </div>
    </div>
  );
}
