// Light or dark: follows the system (prefers-color-scheme) unless the user picked one in the
// header; the choice is kept in localStorage `ax.theme` (system | light | dark).
import { useEffect, useState, useSyncExternalStore } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'ax.theme';

function readChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

const query = () => window.matchMedia('(prefers-color-scheme: dark)');

function useSystemDark(): boolean {
  return useSyncExternalStore(
    (notify) => {
      const mq = query();
      mq.addEventListener('change', notify);
      return () => mq.removeEventListener('change', notify);
    },
    () => query().matches,
  );
}

export function useThemeMode(): { choice: ThemeChoice; dark: boolean; setChoice: (choice: ThemeChoice) => void } {
  const [choice, setChoiceState] = useState<ThemeChoice>(readChoice);
  const systemDark = useSystemDark();
  const dark = choice === 'dark' || (choice === 'system' && systemDark);
  useEffect(() => {
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);
  const setChoice = (next: ThemeChoice) => {
    try {
      if (next === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, next);
    } catch {
      // private mode: the choice lasts for this page only
    }
    setChoiceState(next);
  };
  return { choice, dark, setChoice };
}
