// The graph as a PNG or SVG file, as in React Flow's "download image" example: html-to-image
// renders the viewport element with a transform that frames every node.
import { getNodesBounds, getViewportForBounds, type Node } from '@xyflow/react';
import { toPng, toSvg } from 'html-to-image';

export type ImageFormat = 'png' | 'svg';

const PADDING = 40;
/** browsers refuse canvases much larger than this; a huge graph is scaled down to fit */
const MAX_SIDE = 8_000;

export async function renderGraphImage(
  viewport: HTMLElement,
  nodes: Node[],
  format: ImageFormat,
  background: string,
): Promise<string> {
  const bounds = getNodesBounds(nodes);
  const scale = Math.min(1, MAX_SIDE / Math.max(bounds.width + 2 * PADDING, bounds.height + 2 * PADDING));
  const width = Math.ceil((bounds.width + 2 * PADDING) * scale);
  const height = Math.ceil((bounds.height + 2 * PADDING) * scale);
  const frame = getViewportForBounds(bounds, width, height, scale, 2, `${PADDING * scale}px`);
  const options = {
    backgroundColor: background,
    width,
    height,
    style: {
      width: `${width}px`,
      height: `${height}px`,
      transform: `translate(${frame.x}px, ${frame.y}px) scale(${frame.zoom})`,
    },
  };
  return format === 'png' ? toPng(viewport, options) : toSvg(viewport, options);
}

export function downloadUrl(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
