// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { RunNowButton } from './RunNowModal.tsx';

// a param of each type; the task prints what it sees
const REPORT = `workflow: report
params:
  region: { type: enum, choices: [eu, us], default: eu, description: "Sales region" }
  day: { type: date, required: true }
  limit: { type: number, min: 1, max: 100, default: 10 }
  dry_run: { type: boolean, default: false }
  tag: { type: string, pattern: "^[a-z]+$" }
  at: { type: datetime }
tasks:
  show:
    command: echo "region=$AX_PARAM_REGION day=$AX_PARAM_DAY limit=$AX_PARAM_LIMIT dry=$AX_PARAM_DRY_RUN tag=$AX_PARAM_TAG"
`;

/** the form item around a field, and the problem it shows (none: undefined) */
function fieldOf(dialog: HTMLElement, id: string) {
  const input = dialog.querySelector<HTMLElement>(`#${id}`);
  if (!input) throw new Error(`no field #${id}`);
  const item = input.closest<HTMLElement>('.ant-form-item');
  if (!item) throw new Error(`#${id} is in no form item`);
  return {
    input,
    problem: () => item.querySelector('.ant-form-item-explain-error')?.textContent ?? undefined,
  };
}

const runButton = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: /run now/i });

describe('the run-now dialog against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  it(
    'shows a field per param with its default, refuses bad values on the field, runs with the good ones',
    { timeout: 120_000 },
    async () => {
      await ui.engine.apply(REPORT);
      const user = userEvent.setup();
      ui.render(<RunNowButton name="report" />);
      await user.click(screen.getByRole('button', { name: /run now/i }));
      const dialog = await screen.findByRole('dialog');
      await within(dialog).findByTestId('run-now-params');

      // each type its widget, defaults filled, the description as help
      expect(fieldOf(dialog, 'run-now-param-region').input.getAttribute('role')).toBe('combobox');
      expect(within(dialog).getByTitle('eu')).toBeTruthy();
      expect(within(dialog).getByTestId('run-now-param-region-help').textContent).toContain('Sales region');
      expect((fieldOf(dialog, 'run-now-param-limit').input as HTMLInputElement).value).toBe('10');
      expect(within(dialog).getByTestId('run-now-param-limit-help').textContent).toContain('1 to 100');
      expect(fieldOf(dialog, 'run-now-param-dry_run').input.getAttribute('role')).toBe('switch');
      expect(fieldOf(dialog, 'run-now-param-dry_run').input.getAttribute('aria-checked')).toBe('false');
      expect((fieldOf(dialog, 'run-now-param-day').input as HTMLInputElement).value).toBe('');
      expect(within(dialog).getByTestId('run-now-param-tag-help').textContent).toContain('^[a-z]+$');

      // a value against the pattern: the message on that field as soon as it is typed
      const tag = fieldOf(dialog, 'run-now-param-tag');
      await user.type(tag.input, 'West1');
      await waitFor(() => expect(tag.problem()).toBeTruthy());
      // out of range: the box does not clamp it, the field says what is allowed
      const limit = fieldOf(dialog, 'run-now-param-limit');
      await user.clear(limit.input);
      await user.type(limit.input, '500');
      await waitFor(() => expect(limit.problem()).toMatch(/100/));
      // Run: the required day is named on its field too, and nothing is sent
      const day = fieldOf(dialog, 'run-now-param-day');
      expect(day.problem()).toBeUndefined();
      await user.click(runButton(dialog));
      await waitFor(() => expect(day.problem()).toBeTruthy());
      expect(runButton(dialog).hasAttribute('disabled')).toBe(true);
      expect(await ui.engine.engine.listRuns({ workflow: 'report' })).toHaveLength(0);

      // fixed: Run is offered again and the run records the values
      await user.clear(tag.input);
      await user.type(tag.input, 'west');
      await user.clear(limit.input);
      await user.type(limit.input, '25');
      await user.click(day.input);
      await user.type(day.input, '2026-11-30');
      fireEvent.keyDown(day.input, { key: 'Enter', code: 'Enter' });
      await waitFor(() => expect(day.problem()).toBeUndefined());
      await user.click(fieldOf(dialog, 'run-now-param-dry_run').input);
      await waitFor(() => expect(runButton(dialog).hasAttribute('disabled')).toBe(false));
      expect(tag.problem()).toBeUndefined();
      expect(limit.problem()).toBeUndefined();
      await user.click(runButton(dialog));

      const toast = await screen.findByText(/run #\d+ started/i);
      const id = Number(/#(\d+)/.exec(toast.textContent ?? '')?.[1]);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      const detail = await ui.engine.waitRun(id);
      expect(detail.run.params).toEqual({ region: 'eu', day: '2026-11-30', limit: 25, dry_run: true, tag: 'west' });
      expect(detail.run.state).toBe('SUCCESS');
      const show = detail.instances.find((i) => i.taskName === 'show');
      expect(await ui.engine.logText(show?.id ?? 0)).toEqual(['region=eu day=2026-11-30 limit=25 dry=true tag=west']);
    },
  );

  it('runs only the chosen task and its downstream, at the logical time chosen', { timeout: 120_000 }, async () => {
    await ui.engine.apply(
      'workflow: chain\ntasks:\n  a: { command: echo a }\n  b: { command: echo b, upstream: [a] }\n  c: { command: echo c, upstream: [b] }\n',
    );
    const user = userEvent.setup();
    ui.render(<RunNowButton name="chain" />);
    await user.click(screen.getByRole('button', { name: /run now/i }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByTestId('run-now-no-params')).toBeTruthy();
    // no payload box for a workflow that no event starts
    expect(within(dialog).queryByLabelText(/payload/i)).toBeNull();

    const time = fieldOf(dialog, 'run-now-logical-time');
    await user.click(time.input);
    await user.type(time.input, '2026-11-30 02:00');
    fireEvent.keyDown(time.input, { key: 'Enter', code: 'Enter' });
    await waitFor(() => expect((time.input as HTMLInputElement).value).toBe('2026-11-30 02:00'));

    const task = fieldOf(dialog, 'run-now-task');
    fireEvent.mouseDown(task.input);
    await user.click(await screen.findByTitle('b'));
    await user.click(await within(dialog).findByTestId('run-now-downstream'));
    expect(within(dialog).getByText(/“b” and the tasks after it run/)).toBeTruthy();
    await user.click(runButton(dialog));

    const toast = await screen.findByText(/run #\d+ started/i);
    const detail = await ui.engine.waitRun(Number(/#(\d+)/.exec(toast.textContent ?? '')?.[1]));
    expect(detail.run.onlyTask).toBe('b');
    expect(detail.run.logicalTime).toBe(new Date(2026, 10, 30, 2, 0).getTime());
    const ran = detail.instances.filter((i) => i.state === 'SUCCESS').map((i) => i.taskName);
    expect(ran.sort()).toEqual(['b', 'c']);
  });

  it(
    'keeps the JSON payload of an event workflow: refused when not JSON, sent when fixed',
    { timeout: 120_000 },
    async () => {
      await ui.engine.apply(
        'workflow: greet\non_event: greet-me\ntasks:\n  hello:\n    command: echo "got $AX_EVENT_PAYLOAD"\n',
      );
      const user = userEvent.setup();
      ui.render(<RunNowButton name="greet" />);
      await user.click(screen.getByRole('button', { name: /run now/i }));
      const dialog = await screen.findByRole('dialog');
      const payload = await within(dialog).findByLabelText(/payload/i);

      await user.type(payload, '{{oops');
      await user.click(runButton(dialog));
      expect(await within(dialog).findByText(/not valid json/i)).toBeTruthy();
      expect(runButton(dialog).hasAttribute('disabled')).toBe(true);
      expect(await ui.engine.engine.listRuns({ workflow: 'greet' })).toHaveLength(0);

      await user.clear(payload);
      await user.type(payload, '{{"day": "mon"}');
      await user.click(runButton(dialog));

      const toast = await screen.findByText(/run #\d+ started/i);
      const id = Number(/#(\d+)/.exec(toast.textContent ?? '')?.[1]);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      const detail = await ui.engine.waitRun(id);
      expect(detail.run.state).toBe('SUCCESS');
      const instance = detail.instances.find((i) => i.taskName === 'hello');
      expect(await ui.engine.logText(instance?.id ?? 0)).toEqual(['got {"day": "mon"}']);
    },
  );
});
