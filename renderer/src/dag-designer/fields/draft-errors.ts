// Fields that hold text the spec cannot take yet (a half-typed duration, an env row without a
// name) keep it as a draft and report the error here, so Save can refuse instead of silently
// saving the last valid value.
import { createContext, useContext, useEffect } from 'react';

export interface DraftErrors {
  set(key: string, error: string | undefined): void;
}

export const DraftErrorsContext = createContext<DraftErrors>({ set: () => undefined });

export function useReportDraftError(key: string, error: string | undefined): void {
  const registry = useContext(DraftErrorsContext);
  useEffect(() => {
    registry.set(key, error);
    return () => registry.set(key, undefined);
  }, [registry, key, error]);
}
