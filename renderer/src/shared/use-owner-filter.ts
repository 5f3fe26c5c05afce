// "My workflows": the owner a person picked, kept in localStorage `ax.owner` so every list and the
// lineage open filtered (or highlighted) the same way on this machine. None: everyone's.
import { useCallback, useState } from 'react';

const KEY = 'ax.owner';

function stored(): string | undefined {
  try {
    return localStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function useOwnerFilter(): [string | undefined, (owner: string | undefined) => void] {
  const [owner, setOwner] = useState(stored);
  const choose = useCallback((next: string | undefined) => {
    setOwner(next);
    try {
      if (next === undefined) localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, next);
    } catch {
      // storage refused (private mode): the choice lasts as long as the page
    }
  }, []);
  return [owner, choose];
}
