// Export › PNG / SVG: every node is drawn for the picture (the canvas otherwise draws only what
// is in view), two frames are let paint, then the viewport is rendered to an image and downloaded.
import type { Node } from '@xyflow/react';
import { App, theme } from 'antd';
import { useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadUrl, renderGraphImage } from '../graph/export-image.ts';
import { errorMessage } from '../shared/feedback.tsx';

export function useExportImage(container: RefObject<HTMLDivElement | null>, nodes: Node[], fileName: string) {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const { token } = theme.useToken();
  const [renderAll, setRenderAll] = useState(false);
  const exportImage = async (format: 'png' | 'svg') => {
    const viewport = container.current?.querySelector<HTMLElement>('.react-flow__viewport');
    if (!viewport || nodes.length === 0) return void message.info(t('exportImage.empty'));
    setRenderAll(true);
    try {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const url = await renderGraphImage(viewport, nodes, format, token.colorBgContainer);
      downloadUrl(url, `${fileName}.${format}`);
    } catch (e) {
      message.error(t('exportImage.failed', { error: errorMessage(e) }));
    } finally {
      setRenderAll(false);
    }
  };
  return { renderAll, exportImage };
}
