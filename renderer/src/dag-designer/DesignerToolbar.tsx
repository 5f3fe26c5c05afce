// The designer's toolbar: add/delete, undo/redo, layout direction and auto-layout, fit, import,
// export (YAML, PNG, SVG) and the shortcuts help. Every button has words or a label and a tooltip.
import {
  ApartmentOutlined,
  DeleteOutlined,
  DownloadOutlined,
  ExpandOutlined,
  ImportOutlined,
  PlusOutlined,
  RedoOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { Button, Divider, Dropdown, Flex, Segmented, Tooltip } from 'antd';
import { useState, type ReactElement } from 'react';
import { useTranslation } from 'react-i18next';
import type { LayoutDirection } from '../graph/layout-types.ts';
import { ShortcutsHelp } from './ShortcutsHelp.tsx';

export interface DesignerToolbarProps {
  canDelete: boolean;
  canUndo: boolean;
  canRedo: boolean;
  direction: LayoutDirection;
  helpOpen: boolean;
  onHelpOpen: (open: boolean) => void;
  onAdd: () => void;
  onDelete: () => void;
  onUndo: () => void;
  onRedo: () => void;
  onDirection: (d: LayoutDirection) => void;
  onLayout: () => void;
  onFit: () => void;
  onImport: () => void;
  onExport: (what: 'yaml' | 'png' | 'svg') => void;
}

export function DesignerToolbar(p: DesignerToolbarProps) {
  const { t } = useTranslation('designer');
  return (
    <Flex gap={8} wrap align="center" role="toolbar" aria-label={t('toolbar.label')} style={{ marginBottom: 12 }}>
      <Tip title={`${t('toolbar.add')} (N)`}>
        <Button type="primary" ghost icon={<PlusOutlined />} onClick={p.onAdd}>
          {t('toolbar.add')}
        </Button>
      </Tip>
      <Tip title={`${t('toolbar.delete')} (Delete)`}>
        <Button icon={<DeleteOutlined />} disabled={!p.canDelete} onClick={p.onDelete}>
          {t('toolbar.delete')}
        </Button>
      </Tip>
      <Divider orientation="vertical" />
      <Tip title={`${t('toolbar.undo')} (Ctrl+Z)`}>
        <Button icon={<UndoOutlined />} disabled={!p.canUndo} onClick={p.onUndo} aria-label={t('toolbar.undo')} />
      </Tip>
      <Tip title={`${t('toolbar.redo')} (Ctrl+Shift+Z)`}>
        <Button icon={<RedoOutlined />} disabled={!p.canRedo} onClick={p.onRedo} aria-label={t('toolbar.redo')} />
      </Tip>
      <Divider orientation="vertical" />
      <Segmented<LayoutDirection>
        aria-label={t('toolbar.direction')}
        value={p.direction}
        onChange={p.onDirection}
        options={[
          { value: 'TB', label: t('toolbar.topDown') },
          { value: 'LR', label: t('toolbar.leftRight') },
        ]}
      />
      <Tip title={`${t('toolbar.layout')} (L)`}>
        <Button icon={<ApartmentOutlined />} onClick={p.onLayout}>
          {t('toolbar.layout')}
        </Button>
      </Tip>
      <Tip title={`${t('toolbar.fit')} (F)`}>
        <Button icon={<ExpandOutlined />} onClick={p.onFit} aria-label={t('toolbar.fit')} />
      </Tip>
      <Divider orientation="vertical" />
      <Button icon={<ImportOutlined />} onClick={p.onImport}>
        {t('toolbar.import')}
      </Button>
      <Dropdown
        menu={{
          items: [
            { key: 'yaml', label: t('toolbar.exportYaml') },
            { key: 'png', label: t('toolbar.exportPng') },
            { key: 'svg', label: t('toolbar.exportSvg') },
          ],
          onClick: ({ key }) => p.onExport(key as 'yaml' | 'png' | 'svg'),
        }}
      >
        <Button icon={<DownloadOutlined />}>{t('toolbar.export')}</Button>
      </Dropdown>
      <ShortcutsHelp open={p.helpOpen} onOpenChange={p.onHelpOpen} />
    </Flex>
  );
}

/**
 * A button's tooltip that closes when the button is clicked and stays closed while the pointer
 * rests there: left open, it covered the page title while the user typed into the new task.
 */
function Tip({ title, children }: { title: string; children: ReactElement }) {
  const [open, setOpen] = useState(false);
  return (
    <Tooltip title={title} open={open} onOpenChange={setOpen}>
      <span style={{ display: 'inline-flex' }} onClickCapture={() => setOpen(false)}>
        {children}
      </span>
    </Tooltip>
  );
}
