// A workflow file's text applied through any EngineApi client (the host's port, a WebSocket), as
// the UI does: validated first, with no problem expected, then applied as the UI.
import { expect } from 'vitest';
import type { EngineApi } from '../../engine/api/engine-api.ts';

export async function applyText(api: EngineApi, text: string): Promise<void> {
  const report = await api.validate({ text });
  expect(report.problems).toEqual([]);
  await api.apply(report.spec as NonNullable<typeof report.spec>, 'ui');
}
