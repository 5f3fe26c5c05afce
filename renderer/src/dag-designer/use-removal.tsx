// Deleting from the canvas asks nothing (the Delete key, the toolbar), so it says what went and
// offers Undo in the message: the tasks come back with their connections, also after later edits
// (then restoreRemoved puts them into the spec as it is now), and the canvas gets the keyboard
// back, so the next shortcut works where the last one did.
import { App, Button } from 'antd';
import { useCallback, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { restoreRemoved } from './model/spec-ops.ts';
import type { DesignerDoc } from './use-designer-doc.ts';

const MESSAGE_KEY = 'designer-removed';

export interface Removal {
  before: WorkflowSpec;
  after: WorkflowSpec;
  /** the tasks that went (their connections went with them) */
  tasks: readonly string[];
  /** connections removed on their own */
  edges: number;
}

/** Records a removal and says so, with Undo; `refocus` gives the canvas the keyboard again. */
export function useRemoval(doc: DesignerDoc, refocus: () => void): (removal: Removal) => void {
  const { t } = useTranslation('designer');
  const { message } = App.useApp();
  const latest = useRef(doc);
  latest.current = doc;
  return useCallback(
    ({ before, after, tasks, edges }: Removal) => {
      if (after === before) return;
      latest.current.edit(after);
      const undo = () => {
        message.destroy(MESSAGE_KEY);
        const now = latest.current;
        // nothing edited since: a plain undo (redo keeps working); else put back what went
        if (now.spec === after) now.undo();
        else now.edit(restoreRemoved(now.spec, before, after));
        refocus();
      };
      const text =
        tasks.length === 1
          ? t('removed.task', { name: tasks[0] })
          : tasks.length > 1
            ? t('removed.tasks', { count: tasks.length })
            : t('removed.edges', { count: edges });
      message.info({
        key: MESSAGE_KEY,
        duration: 10,
        content: (
          <span data-testid="removed-message">
            {text}{' '}
            <Button type="link" size="small" onClick={undo} style={{ padding: '0 4px' }}>
              {t('removed.undo')}
            </Button>
          </span>
        ),
      });
    },
    [message, t, refocus],
  );
}
