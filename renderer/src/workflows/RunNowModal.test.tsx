// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { RunNowButton } from './RunNowModal.tsx';

describe('the run-now dialog against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
    await ui.engine.apply('workflow: greet\ntasks:\n  hello:\n    command: echo "got $AX_EVENT_PAYLOAD"\n');
  });
  afterEach(() => ui.close());

  it('refuses a payload that is not JSON, then starts the run with the fixed one', { timeout: 120_000 }, async () => {
    const user = userEvent.setup();
    ui.render(<RunNowButton name="greet" />);
    await user.click(screen.getByRole('button', { name: /run now/i }));
    const dialog = await screen.findByRole('dialog');
    const payload = within(dialog).getByLabelText(/payload/i);

    await user.type(payload, '{{oops');
    await user.click(within(dialog).getByRole('button', { name: /run now/i }));
    expect(await within(dialog).findByText(/not valid json/i)).toBeTruthy();
    expect(
      within(dialog)
        .getByRole('button', { name: /run now/i })
        .hasAttribute('disabled'),
    ).toBe(true);
    expect(await ui.engine.engine.listRuns({ workflow: 'greet' })).toHaveLength(0);

    await user.clear(payload);
    await user.type(payload, '{{"day": "mon"}');
    await user.click(within(dialog).getByRole('button', { name: /run now/i }));

    const toast = await screen.findByText(/run #\d+ started/i);
    const id = Number(/#(\d+)/.exec(toast.textContent ?? '')?.[1]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const detail = await ui.engine.waitRun(id);
    expect(detail.run.state).toBe('SUCCESS');
    const instance = detail.instances.find((i) => i.taskName === 'hello');
    expect(await ui.engine.logText(instance?.id ?? 0)).toEqual(['got {"day": "mon"}']);
  });
});
