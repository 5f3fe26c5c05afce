// @vitest-environment jsdom
// The Tokens page and the role-aware buttons against a real engine and the real accounts service:
// a viewer's token form offers only what a viewer may (read), the token is shown once with its
// warning and works with the service, is listed with its state and revoked; a viewer sees Run now
// disabled saying why, an operator may run, the solo user may do everything.
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../engine/api/access.ts';
import { startPeople, type People } from '../test-support/people-engine.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { RunNowButton } from '../workflows/RunNowModal.tsx';
import TokensPage from './TokensPage.tsx';

const SLOW = { timeout: 15_000 };

/** the New token dialog (by its form: antd's ids in jsdom do not name it reliably) */
async function tokenDialog(): Promise<HTMLElement> {
  return (await screen.findByTestId('token-form', {}, SLOW)).closest('[role="dialog"]') as HTMLElement;
}

/** the checkbox of a scope in the token form */
function scopeBox(dialog: HTMLElement, scope: string): HTMLInputElement {
  const el = within(dialog).getByTestId(`scope-${scope}`);
  return (el.tagName === 'INPUT' ? el : el.querySelector('input')) as HTMLInputElement;
}
const BOB: Principal = { user: 'bob', role: 'viewer', groups: [], via: 'session' };

describe('API tokens and role-aware buttons', () => {
  let ui: EngineUi | undefined;
  let people: People | undefined;
  afterEach(async () => {
    await ui?.close();
    await people?.close();
    ui = undefined;
    people = undefined;
  });

  async function start(me: Principal) {
    people = await startPeople(me);
    await people.addUser({ name: 'alice', role: 'admin', password: 'alice-password-1' });
    await people.addUser({ name: 'bob', role: 'viewer', password: 'bob-password-12' });
    await people.addUser({ name: 'olga', role: 'operator', password: 'olga-password-1' });
    ui = await startEngineUi({ api: (e) => people!.api(e.engine), identity: people.identity });
  }

  it('a viewer makes a read token, sees it once, then listed; revokes it', { timeout: 120_000 }, async () => {
    await start(BOB);
    ui!.render(<TokensPage />);
    const user = userEvent.setup();
    await screen.findByText('No token yet. Make one for the CLI, a script or a worker.', {}, SLOW);
    // not an admin: no "whose tokens" choice
    expect(screen.queryByTestId('token-user-filter')).toBeNull();

    await user.click(screen.getByTestId('create-token'));
    const dialog = await tokenDialog();
    // a viewer's token: read only; the rest greyed out, saying why
    const scope = (s: string) => scopeBox(dialog, s);
    expect(scope('read').disabled).toBe(false);
    for (const s of ['run', 'edit', 'admin', 'worker', 'metrics', 'events']) expect(scope(s).disabled, s).toBe(true);
    // validation in words
    await user.type(within(dialog).getByLabelText(/^name/i), 'my laptop');
    await user.click(within(dialog).getByRole('button', { name: 'New token' }));
    await within(dialog).findByText(/A token name uses 1 to 100 letters/, {}, SLOW);
    await user.clear(within(dialog).getByLabelText(/^name/i));
    await user.type(within(dialog).getByLabelText(/^name/i), 'laptop');
    await user.click(within(dialog).getByRole('button', { name: 'New token' }));

    // shown once: the token, Copy and the warning; it is a real token of bob's
    const token = ((await screen.findByTestId('new-token', {}, SLOW)) as HTMLInputElement).value;
    expect(token).toMatch(/^axt_[A-Za-z0-9_-]{43}$/);
    expect(screen.getByTestId('token-once-warning').textContent).toContain('the only time it is shown');
    expect(screen.getByTestId('copy-token')).toBeTruthy();
    const principal = await people!.access.tokenPrincipal(token, '127.0.0.1');
    expect(principal).toMatchObject({
      user: 'bob',
      role: 'viewer',
      via: 'token',
      token: { name: 'laptop', scopes: ['read'] },
    });
    await user.click(screen.getByTestId('token-done'));
    await waitFor(() => expect(screen.queryByTestId('new-token')).toBeNull(), SLOW);

    // listed, without the token itself, active; then revoked
    const row = (await screen.findByText('laptop', {}, SLOW)).closest('tr') as HTMLElement;
    expect(within(row).getByText('Active')).toBeTruthy();
    expect(within(row).getByText('Not used yet')).toBeTruthy();
    expect(document.body.textContent).not.toContain(token);
    await user.click(within(row).getByTestId('revoke-laptop'));
    await user.click((await screen.findAllByRole('button', { name: 'Revoke' }, SLOW)).at(-1) as HTMLElement);
    await waitFor(
      () => expect(within(screen.getByText('laptop').closest('tr') as HTMLElement).getByText('Revoked')).toBeTruthy(),
      SLOW,
    );
    expect(await people!.access.tokenPrincipal(token, '127.0.0.1')).toBeUndefined();
  });

  it("an admin sees everyone's tokens and may make a worker token for an operator", { timeout: 120_000 }, async () => {
    await start({ user: 'alice', role: 'admin', groups: [], via: 'session' });
    await people!.access.createToken({ name: 'olga-cli', scopes: ['run'] }, 'olga');
    ui!.render(<TokensPage />, { path: '/?user=*' });
    const user = userEvent.setup();
    const row = (await screen.findByText('olga-cli', {}, SLOW)).closest('tr') as HTMLElement;
    expect(within(row).getByText('olga')).toBeTruthy();

    await user.click(screen.getByTestId('create-token'));
    const dialog = await tokenDialog();
    await user.type(within(dialog).getByLabelText(/^name/i), 'olga-worker');
    await user.click(within(dialog).getByLabelText('Owner'));
    await user.click(await screen.findByTitle('olga (operator)', {}, SLOW));
    const scope = (s: string) => scopeBox(dialog, s);
    await waitFor(() => expect(scope('worker').disabled).toBe(false), SLOW);
    expect(scope('edit').disabled).toBe(true);
    await user.click(scope('read'));
    await user.click(scope('worker'));
    // the worker scope asks for the worker id
    await user.click(within(dialog).getByRole('button', { name: 'New token' }));
    await within(dialog).findByText('A worker token is for one worker id.', {}, SLOW);
    await user.type(within(dialog).getByLabelText('Worker id'), 'laptop-7');
    await user.type(within(dialog).getByLabelText('Worker labels'), 'gpu{enter}');
    await user.click(within(dialog).getByRole('button', { name: 'New token' }));
    await screen.findByTestId('new-token', {}, SLOW);
    const made = (await people!.access.listTokens({ user: 'olga' }, 'alice')).find((t) => t.name === 'olga-worker');
    expect(made).toMatchObject({
      user: 'olga',
      scopes: ['worker'],
      workerId: 'laptop-7',
      labels: ['gpu'],
      createdBy: 'alice',
    });
  });

  it(
    'Run now: disabled for a viewer with why, allowed for an operator and the solo user',
    { timeout: 120_000 },
    async () => {
      await start(BOB);
      await ui!.engine.apply('workflow: hello\ntasks:\n  say:\n    command: echo hi\n');
      ui!.render(<RunNowButton name="hello" />);
      const guarded = await screen.findByTestId('not-allowed', {}, SLOW);
      expect(guarded.getAttribute('data-why')).toBe(
        'Needs the operator role — you are viewer. Ask an admin to change your role.',
      );
      expect((within(guarded).getByRole('button', { name: /run now/i }) as HTMLButtonElement).disabled).toBe(true);
      await ui!.close();
      await people!.close();

      await start({ user: 'olga', role: 'operator', groups: [], via: 'session' });
      await ui!.engine.apply('workflow: hello\ntasks:\n  say:\n    command: echo hi\n');
      ui!.render(<RunNowButton name="hello" />);
      await waitFor(() => expect(screen.queryByTestId('not-allowed')).toBeNull(), SLOW);
      expect((screen.getByRole('button', { name: /run now/i }) as HTMLButtonElement).disabled).toBe(false);
      await ui!.close();
      await people!.close();
      people = undefined;

      ui = await startEngineUi();
      await ui.engine.apply('workflow: hello\ntasks:\n  say:\n    command: echo hi\n');
      ui.render(<RunNowButton name="hello" />);
      await new Promise((r) => setTimeout(r, 500)); // whoami answered (the local admin)
      expect(screen.queryByTestId('not-allowed')).toBeNull();
      expect((screen.getByRole('button', { name: /run now/i }) as HTMLButtonElement).disabled).toBe(false);
    },
  );
});
