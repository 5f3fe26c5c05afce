// React Flow's screen-reader texts for the read-only task graphs (a run, the lineage), in the
// page's language: each namespace has them under `graph.*`.
import { useMemo } from 'react';
import type { TFunction } from 'i18next';

/** `interactive`: the controls show the lock button, so its label is needed too. */
export function useGraphAria(t: TFunction, interactive = false) {
  return useMemo(
    () => ({
      'node.a11yDescription.default': t('graph.nodeHelp'),
      'node.a11yDescription.keyboardDisabled': t('graph.nodeHelp'),
      'edge.a11yDescription.default': t('graph.edgeHelp'),
      'controls.ariaLabel': t('graph.controls'),
      'controls.zoomIn.ariaLabel': t('graph.zoomIn'),
      'controls.zoomOut.ariaLabel': t('graph.zoomOut'),
      'controls.fitView.ariaLabel': t('graph.fitView'),
      ...(interactive && { 'controls.interactive.ariaLabel': t('graph.interactive') }),
    }),
    [t, interactive],
  );
}
