// @vitest-environment jsdom
// A monitor on the workflow list (design.md §13): its schedule, and that it is a monitor with its
// grace, in English and in Chinese, from a real engine's listing.
import '../test-support/dom-shims.ts';
import { screen } from '@testing-library/react';
import i18n from 'i18next';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import WorkflowsPage from './WorkflowsPage.tsx';

describe('a monitor on the workflow list', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
    await ui.engine.apply('workflow: backup\nschedule: "0 2 * * *"\nmonitor: { grace: 10m }\n');
    await ui.engine.apply('workflow: etl\nschedule: "0 3 * * *"\ntasks:\n  a: { command: "true" }\n');
  });
  afterEach(async () => {
    await i18n.changeLanguage('en');
    await ui.close();
  });

  it(
    'says it is a monitor and its grace; a workflow with tasks says nothing of the kind',
    { timeout: 120_000 },
    async () => {
      ui.render(<WorkflowsPage />);
      const line = await screen.findByText(/Monitor: runs reported by ax ping \/ ax wrap/);
      expect(line.textContent).toContain('10 min');
      expect(screen.getAllByText(/Monitor: runs reported/)).toHaveLength(1);
      await i18n.changeLanguage('zh-CN');
      expect((await screen.findByText(/监控：由 ax ping \/ ax wrap 上报运行/)).textContent).toContain('10');
    },
  );

  it(
    'offers no Run now for a monitor (it runs nothing itself), only for the workflow with tasks',
    { timeout: 120_000 },
    async () => {
      ui.render(<WorkflowsPage />);
      await screen.findByText(/Monitor: runs reported/);
      await screen.findByText('etl');
      expect(screen.getAllByRole('button', { name: /Run now/ })).toHaveLength(1);
    },
  );
});
