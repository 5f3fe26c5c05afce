// @vitest-environment jsdom
// The instance page's Outputs card against a real engine: what a task wrote to $AX_OUTPUT, key by
// key, with the name its downstream tasks get; nothing for an attempt that wrote none.
import '../test-support/dom-shims.ts';
import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { InstanceOutputs } from './InstanceOutputs.tsx';

describe('the Outputs card against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  it('lists each output of the attempt; none: no card', { timeout: 120_000 }, async () => {
    await ui.engine.apply(
      `workflow: out\ntasks:\n  load-eu:\n    command: 'echo rows=42 >> "$AX_OUTPUT"; echo "file=a b.csv" >> "$AX_OUTPUT"'\n  quiet: { command: "true" }\n`,
    );
    const { instances } = await ui.engine.runToEnd('out');
    const load = instances.find((i) => i.taskName === 'load-eu');
    const quiet = instances.find((i) => i.taskName === 'quiet');
    if (!load || !quiet) throw new Error('missing instances');
    const { container, unmount } = ui.render(<InstanceOutputs instance={load} />);
    expect(screen.getByText('Outputs')).toBeTruthy();
    expect(screen.getByText('rows')).toBeTruthy();
    expect(screen.getByText('42')).toBeTruthy();
    expect(screen.getByText('a b.csv')).toBeTruthy();
    expect(container.textContent).toContain('AX_OUTPUT_LOAD_EU_KEY');
    unmount();
    const empty = ui.render(<InstanceOutputs instance={quiet} />);
    expect(empty.container.textContent).toBe('');
  });
});
