import { createContext, useContext } from 'react';
import type { ThemeChoice } from './theme-mode.ts';

export const ThemeContext = createContext<{
  choice: ThemeChoice;
  dark: boolean;
  setChoice: (choice: ThemeChoice) => void;
}>({
  choice: 'system',
  dark: false,
  setChoice: () => undefined,
});

export const useTheme = () => useContext(ThemeContext);
