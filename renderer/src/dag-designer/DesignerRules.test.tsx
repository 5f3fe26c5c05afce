// @vitest-environment jsdom
// The designer's side panel for issue 23's fields, against a real engine: a task's run_if, when
// and call, and a workflow's params, edited, undone and redone, saved as the engine stores them,
// and a problem the engine finds shown on the field it belongs to.
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import DesignerPage from './DesignerPage.tsx';

const ETL = `workflow: etl
tasks:
  extract:
    command: echo rows=3 >> "$AX_OUTPUT"
  load:
    command: echo load
    upstream: [extract]
`;
const REPORTS = `workflow: reports
params:
  region: { type: enum, choices: [eu, us], default: eu }
  day: { type: date, required: true }
tasks:
  build: { command: echo report }
`;

/** the antd Select whose input has this id: opened, and the option with this title picked */
async function pick(user: ReturnType<typeof userEvent.setup>, id: string, title: string): Promise<void> {
  await user.click(document.getElementById(id) as HTMLElement);
  const option = await waitFor(() => {
    const found = [...document.querySelectorAll<HTMLElement>('.ant-select-item-option')].find(
      (o) => o.getAttribute('title') === title && o.offsetParent !== undefined,
    );
    if (!found) throw new Error(`no option "${title}" for #${id}`);
    return found;
  });
  await user.click(option);
}

/** a click on a task's node (a click event alone: React Flow's drag handler needs a real window) */
const select = (name: string) => fireEvent.click(node(name) as HTMLElement);
const node = (name: string) => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${name}"]`);

describe('the designer edits rules, conditions, calls and params', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi({ start: false });
    await ui.engine.apply(REPORTS);
    await ui.engine.apply(ETL);
  });
  afterEach(() => ui.close());

  // a whole page rendered by jsdom on a shared 2-core machine: slow, hence the longer bound
  it('sets run_if, when and call on tasks, undoes and redoes them, and saves them', { timeout: 240_000 }, async () => {
    const user = userEvent.setup();
    ui.render(<DesignerPage />, { path: '/designer/etl', route: '/designer/:name' });
    await waitFor(() => expect(node('load')).toBeTruthy(), { timeout: 30_000 });
    select('load');
    await screen.findByRole('form', { name: /load/ });

    await pick(user, 'task-field-run_if', 'All upstream done');
    await waitFor(() => expect(within(node('load')!).getByTestId('rule-badge').textContent).toContain('all_done'));

    await user.click(screen.getByRole('radio', { name: 'Comparison' }));
    // the hint names what this task may compare: its upstream's outputs
    expect(screen.getByTestId('when-hint').textContent).toContain('outputs.extract.KEY');
    await user.click(document.getElementById('task-field-when') as HTMLElement);
    await user.paste('outputs.extract.rows > 0');
    await waitFor(() => expect(within(node('load')!).getByTestId('when-badge')).toBeTruthy());

    // undo: the condition goes (its kind and text are one step, or two when this machine typed
    // slowly), then the rule; redo brings both back
    const undo = screen.getByRole('button', { name: 'Undo' });
    const redo = screen.getByRole('button', { name: 'Redo' });
    for (let i = 0; i < 2 && within(node('load')!).queryByTestId('when-badge'); i++) {
      await user.click(undo);
      await waitFor(() => expect(document.getElementById('task-field-when')?.getAttribute('value') ?? '').toBe(''));
    }
    await waitFor(() => expect(within(node('load')!).queryByTestId('when-badge')).toBeNull());
    expect(within(node('load')!).getByTestId('rule-badge')).toBeTruthy();
    await user.click(undo);
    await waitFor(() => expect(within(node('load')!).queryByTestId('rule-badge')).toBeNull());
    expect(screen.queryByTestId('unsaved')).toBeNull();
    while (!redo.hasAttribute('disabled')) await user.click(redo);
    await waitFor(() =>
      expect((document.getElementById('task-field-when') as HTMLInputElement).value).toBe('outputs.extract.rows > 0'),
    );

    // a new task that calls another workflow, with one of its params
    await user.click(screen.getByRole('button', { name: /add task/i }));
    await user.click(await screen.findByRole('switch', { name: /calls another workflow/i }));
    expect(document.getElementById('task-field-command')).toBeNull();
    await pick(user, 'task-field-call', 'reports');
    const region = await screen.findByLabelText(/region/);
    expect((region as HTMLInputElement).placeholder).toBe('default: eu');
    await user.click(region);
    await user.paste('us');
    await waitFor(() => expect(within(node('task-1')!).getByTestId('node-call').textContent).toContain('reports'));

    await user.click(screen.getByRole('button', { name: /\bsave$/i }));
    expect(await screen.findByText(/saved "etl"/i, undefined, { timeout: 30_000 })).toBeTruthy();
    const stored = await ui.engine.engine.exportWorkflow('etl');
    expect(stored.tasks.find((t) => t.name === 'load')).toMatchObject({
      runIf: 'all_done',
      when: { expr: 'outputs.extract.rows > 0' },
    });
    expect(stored.tasks.find((t) => t.name === 'task-1')).toMatchObject({
      command: '',
      call: { workflow: 'reports', params: { region: 'us' } },
    });
  });

  it(
    'edits params, shows the problems the engine finds on their fields, and saves them',
    { timeout: 240_000 },
    async () => {
      const user = userEvent.setup();
      ui.render(<DesignerPage />, { path: '/designer/etl', route: '/designer/:name' });
      await waitFor(() => expect(node('load')).toBeTruthy(), { timeout: 30_000 });
      await user.click(await screen.findByRole('tab', { name: 'Workflow' }));
      await user.click(await screen.findByRole('button', { name: /add parameter/i }));
      const card = await screen.findByTestId('param-0');
      const name = within(card).getByLabelText('Name');
      await user.clear(name);
      await user.paste('limit');
      expect(within(card).getByText(/AX_PARAM_LIMIT/)).toBeTruthy();
      await pick(user, (within(card).getByLabelText('Type') as HTMLElement).id, 'Number');
      await user.click(within(card).getByLabelText('Min'));
      await user.paste('1');
      await user.click(within(card).getByLabelText('Default'));
      await user.paste('0');

      // a comparison on an output of a task that is not upstream of load: the engine refuses it
      select('load');
      await user.click(await screen.findByRole('radio', { name: 'Comparison' }));
      await user.click(document.getElementById('task-field-when') as HTMLElement);
      await user.paste('outputs.nothere.rows > 0');

      await user.click(screen.getByRole('button', { name: /\bsave$/i }));
      // the first problem is opened: both are on their fields
      expect((await screen.findByTestId('problem-when', undefined, { timeout: 30_000 })).textContent).toMatch(
        /nothere/,
      );
      await user.click(screen.getByRole('tab', { name: 'Workflow' }));
      expect((await screen.findByTestId('param-problem')).textContent).toMatch(/minimum 1/);
      expect(await ui.engine.engine.exportWorkflow('etl')).not.toHaveProperty('params');

      // fixed: the default within the range, the comparison on the upstream
      const fixedDefault = within(screen.getByTestId('param-0')).getByLabelText('Default');
      await user.clear(fixedDefault);
      await user.paste('5');
      select('load');
      const when = (await waitFor(() => document.getElementById('task-field-when'))) as HTMLInputElement;
      await user.clear(when);
      await user.paste('params.limit > 2');
      await user.click(screen.getByRole('button', { name: /\bsave$/i }));
      expect(await screen.findByText(/saved "etl"/i, undefined, { timeout: 30_000 })).toBeTruthy();
      const stored = await ui.engine.engine.exportWorkflow('etl');
      expect(stored.params).toEqual([{ name: 'limit', type: 'number', required: false, min: 1, default: 5 }]);
      expect(stored.tasks.find((t) => t.name === 'load')?.when).toEqual({ expr: 'params.limit > 2' });
    },
  );
});
