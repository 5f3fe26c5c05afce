// "You have unsaved changes": the browser's own prompt when the tab is closed or reloaded, and a
// confirm before an in-app link leaves the designer. The app uses a plain HashRouter, which has
// no navigation blocker, so links are caught on their way (capture phase) instead.
import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

export function useUnsavedWarning(dirty: boolean): void {
  const { modal } = App.useApp();
  const { t } = useTranslation('designer');
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);

  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      if (!dirtyRef.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
      const a = (e.target as HTMLElement | null)?.closest?.('a[href]');
      if (!(a instanceof HTMLAnchorElement) || a.target === '_blank' || a.hasAttribute('download')) return;
      const href = a.getAttribute('href') ?? '';
      if (!href.startsWith('#/') || href === location.hash) return;
      e.preventDefault();
      e.stopPropagation();
      modal.confirm({
        title: t('unsaved.title'),
        content: t('unsaved.body'),
        okText: t('unsaved.leave'),
        okButtonProps: { danger: true },
        cancelText: t('unsaved.stay'),
        onOk: () => {
          dirtyRef.current = false;
          location.hash = href.slice(1);
        },
      });
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [modal, t]);
}
