// How a grid cell or bar looks: its state's colour and, for the states that need attention, a
// one-character mark, so a failure is told by shape as well as by colour (colour-blind safe).
import type { GlobalToken } from 'antd';
import { stateStyle } from '../shared/state-style.tsx';

const MARKS: Partial<Record<string, string>> = {
  FAILED: '✕',
  TIMEOUT: '!',
  UPSTREAM_FAILED: '↑',
  CANCELLED: '–',
  SKIPPED: '»',
  RUNNING: '•',
  WAITING: '…',
};

export function stateColour(token: GlobalToken, state: string): string {
  return token[stateStyle(state).token] as string;
}

export function stateMark(state: string): string {
  return MARKS[state] ?? '';
}
