// useCan(): whether the person on this connection may call an API method, and if not, why in
// words ("Needs the operator role (you are a viewer)"). From whoami and METHOD_RULES (can.ts).
// Solo and the desktop app: the local user is an admin, so everything is allowed.
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiMethod } from '../../../engine/api/engine-api.ts';
import { useWhoami } from '../server-state/index.ts';
import { canCall, type Verdict } from './can.ts';

export interface Can {
  allowed: boolean;
  /** why not, for a tooltip; undefined when allowed */
  why?: string;
}

export function useVerdictText(): (verdict: Verdict) => string | undefined {
  const { t } = useTranslation('people');
  return useCallback(
    (verdict: Verdict) => {
      if (verdict.ok) return undefined;
      if (verdict.need === 'role')
        return t('can.needsRole', { role: t(`role.${verdict.role}`), have: t(`role.${verdict.have}`) });
      if (verdict.need === 'scope') return t('can.needsScope', { scope: verdict.scope });
      return verdict.groups.length
        ? t('can.needsGroup', { group: verdict.group, groups: verdict.groups.join(', ') })
        : t('can.needsGroupNone', { group: verdict.group });
    },
    [t],
  );
}

/** `can(method, owner?)`: `owner` is the owner group of the workflow a change would touch. */
export function useCan(): (method: ApiMethod, owner?: string) => Can {
  const me = useWhoami().data;
  const text = useVerdictText();
  return useCallback(
    (method: ApiMethod, owner?: string) => {
      const verdict = canCall(me, method, owner);
      return verdict.ok ? { allowed: true } : { allowed: false, why: text(verdict) };
    },
    [me, text],
  );
}
