// @vitest-environment jsdom
// The workflows list against a real engine: the text filter narrows the rows (and says how many
// of how many), a column header sorts them, and Delete sits in the row's "…" menu behind a
// confirmation.
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import WorkflowsPage from './WorkflowsPage.tsx';

const rowNames = () =>
  [...document.querySelectorAll('.ant-table-tbody > tr.ant-table-row')].map((tr) => tr.querySelector('a')?.textContent);

describe('the workflows list', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
    const task = 'tasks:\n  a: { command: "true" }\n';
    await ui.engine.apply(`workflow: alpha\nowner: zoe\ndescription: Nightly warehouse load\n${task}`);
    await ui.engine.apply(`workflow: billing\nowner: ann\n${task}`);
    await ui.engine.apply(`workflow: ci\n${task}`);
  });
  afterEach(async () => {
    await ui.close();
  });

  it('filters by name, owner or description and sorts by a column', { timeout: 120_000 }, async () => {
    ui.render(<WorkflowsPage />);
    await screen.findByText('ci');
    expect(rowNames()).toEqual(['alpha', 'billing', 'ci']);

    const filter = screen.getByRole('textbox', { name: 'Filter workflows' });
    fireEvent.change(filter, { target: { value: 'warehouse' } });
    await waitFor(() => expect(rowNames()).toEqual(['alpha']));
    expect(screen.getByTestId('list-count').textContent).toBe('1 of 3 workflows');
    fireEvent.change(filter, { target: { value: 'ann' } });
    await waitFor(() => expect(rowNames()).toEqual(['billing']));
    fireEvent.change(filter, { target: { value: 'nobody' } });
    expect(await screen.findByText('No workflow matches “nobody”')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Clear the filter' }));
    await waitFor(() => expect(rowNames()).toEqual(['alpha', 'billing', 'ci']));

    // the owner column is shown on wide screens only; the name's header sorts everywhere
    fireEvent.click(screen.getByRole('columnheader', { name: /Name/ }));
    await waitFor(() => expect(rowNames()).toEqual(['ci', 'billing', 'alpha']));
  });

  it('deletes from the "…" menu only after the confirmation', { timeout: 120_000 }, async () => {
    ui.render(<WorkflowsPage />);
    await screen.findByText('ci');
    expect(screen.queryByRole('button', { name: /^Delete/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'More actions for ci' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: /Delete…/ }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Delete workflow “ci”?');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(rowNames()).toEqual(['alpha', 'billing']));
    expect((await ui.engine.engine.listWorkflows()).map((w) => w.name)).toEqual(['alpha', 'billing']);
  });
});
