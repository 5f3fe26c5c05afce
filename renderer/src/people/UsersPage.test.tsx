// @vitest-environment jsdom
// The Users page against a real engine and the real accounts service (scrypt, SQLite, migration
// 0024): the list, Add user's validation in words, then a real add, a role change, disable and
// remove; a non-admin is told the page is for admins.
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../engine/api/access.ts';
import { startPeople, type People } from '../test-support/people-engine.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import UsersPage from './UsersPage.tsx';

/** the service hashes with scrypt and jsdom is slow on a shared core: answers take a while */
const SLOW = { timeout: 15_000 };

const ALICE: Principal = { user: 'alice', role: 'admin', groups: ['ops'], via: 'session' };

function problemOf(dialog: HTMLElement, label: RegExp): string | undefined {
  const item = within(dialog).getByLabelText(label).closest<HTMLElement>('.ant-form-item');
  return item?.querySelector('.ant-form-item-explain-error')?.textContent ?? undefined;
}

describe('the Users page', () => {
  let ui: EngineUi | undefined;
  let people: People | undefined;
  afterEach(async () => {
    await ui?.close();
    await people?.close();
  });

  async function open(me: Principal) {
    people = await startPeople(me);
    await people.addUser({ name: 'alice', role: 'admin', groups: ['ops'], password: 'alice-password-1' });
    await people.addUser({ name: 'bob', role: 'viewer', password: 'bob-password-12' });
    ui = await startEngineUi({ api: (e) => people!.api(e.engine), identity: people.identity });
    ui.render(<UsersPage />);
  }

  it(
    'lists the accounts, checks Add user in words, adds, changes a role, disables and removes',
    { timeout: 120_000 },
    async () => {
      await open(ALICE);
      const user = userEvent.setup();
      await screen.findByTestId('user-bob', {}, SLOW);
      const bobRow = () => screen.getByTestId('user-bob').closest('tr') as HTMLElement;
      expect(within(bobRow()).getByText('viewer')).toBeTruthy();
      expect(within(bobRow()).getByText('Password')).toBeTruthy();
      expect(within(bobRow()).getByText('Never')).toBeTruthy();
      expect(within(screen.getByTestId('user-alice').closest('tr') as HTMLElement).getByText('you')).toBeTruthy();

      // Add user: the service's rules, said before sending
      await user.click(screen.getByTestId('add-user'));
      let dialog = await screen.findByRole('dialog', {}, SLOW);
      await user.type(within(dialog).getByLabelText(/^user name/i), 'carol smith');
      await user.type(within(dialog).getByLabelText(/^initial password/i), 'short');
      await user.type(within(dialog).getByLabelText(/new password again/i), 'different');
      await user.click(within(dialog).getByRole('button', { name: 'Add user' }));
      await waitFor(() => {
        expect(problemOf(dialog, /^user name/i)).toMatch(/letters, digits and \. _ @ \+ -/);
        expect(problemOf(dialog, /^initial password/i)).toBe('A password has at least 12 characters.');
        expect(problemOf(dialog, /new password again/i)).toBe('The two passwords differ.');
      }, SLOW);

      // fixed: carol, an operator of data-team
      await user.clear(within(dialog).getByLabelText(/^user name/i));
      await user.type(within(dialog).getByLabelText(/^user name/i), 'carol');
      await user.clear(within(dialog).getByLabelText(/^initial password/i));
      await user.type(within(dialog).getByLabelText(/^initial password/i), 'carol-password-1');
      await user.clear(within(dialog).getByLabelText(/new password again/i));
      await user.type(within(dialog).getByLabelText(/new password again/i), 'carol-password-1');
      await user.click(within(dialog).getByLabelText('Role'));
      await user.click(await screen.findByTitle('operator', {}, SLOW));
      await user.type(within(dialog).getByLabelText('Groups'), 'data-team{enter}');
      await user.click(within(dialog).getByRole('button', { name: 'Add user' }));
      await screen.findByTestId('user-carol', {}, SLOW);
      const stored = (await people!.access.listUsers()).find((u) => u.name === 'carol');
      expect(stored).toMatchObject({ role: 'operator', groups: ['data-team'], source: 'local', disabled: false });
      // the group appears in the groups card, named by carol
      await waitFor(() => expect(within(screen.getByTestId('groups-card')).getByText('data-team')).toBeTruthy(), SLOW);

      // bob becomes an editor
      await user.click(screen.getByTestId('user-actions-bob'));
      await user.click(await screen.findByText('Change role and groups…', {}, SLOW));
      dialog = await screen.findByRole('dialog', { name: 'Change bob' }, SLOW);
      await user.click(within(dialog).getByLabelText('Role'));
      await user.click(await screen.findByTitle('editor', {}, SLOW));
      await user.click(within(dialog).getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(within(bobRow()).getByText('editor')).toBeTruthy(), SLOW);

      // disable bob: the tag says so, and the service agrees
      await user.click(screen.getByTestId('user-actions-bob'));
      await user.click(await screen.findByText('Disable', {}, SLOW));
      await waitFor(() => expect(within(bobRow()).getByText('Disabled')).toBeTruthy(), SLOW);
      expect((await people!.access.listUsers()).find((u) => u.name === 'bob')?.disabled).toBe(true);

      // remove carol, after confirming
      await user.click(screen.getByTestId('user-actions-carol'));
      // each row has its own menu; the one just opened is the last
      await user.click((await screen.findAllByText('Remove…', {}, SLOW)).at(-1) as HTMLElement);
      const confirm = await screen.findByRole('dialog', { name: /remove carol/i }, SLOW);
      await user.click(within(confirm).getByRole('button', { name: 'Remove' }));
      await waitFor(() => expect(screen.queryByTestId('user-carol')).toBeNull(), SLOW);
      expect((await people!.access.listUsers()).map((u) => u.name).sort()).toEqual(['alice', 'bob']);
    },
  );

  it(
    'refusals of the service are shown in the form: the last admin cannot be demoted',
    { timeout: 60_000 },
    async () => {
      await open(ALICE);
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('user-actions-alice', {}, SLOW));
      await user.click(await screen.findByText('Change role and groups…', {}, SLOW));
      const dialog = await screen.findByRole('dialog', { name: 'Change alice' }, SLOW);
      await user.click(within(dialog).getByLabelText('Role'));
      await user.click(await screen.findByTitle('viewer', {}, SLOW));
      await user.click(within(dialog).getByRole('button', { name: 'Save' }));
      const error = await within(dialog).findByTestId('user-form-error', {}, SLOW);
      expect(error.textContent).toMatch(/admin/);
      expect((await people!.access.listUsers()).find((u) => u.name === 'alice')?.role).toBe('admin');
    },
  );

  it('a non-admin is told the page is for admins, and nothing is listed', { timeout: 60_000 }, async () => {
    await open({ user: 'bob', role: 'viewer', groups: [], via: 'session' });
    await screen.findByText('Only admins manage accounts (you are viewer).', {}, SLOW);
    expect(screen.queryByTestId('user-alice')).toBeNull();
  });
});
