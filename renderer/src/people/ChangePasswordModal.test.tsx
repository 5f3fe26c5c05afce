// @vitest-environment jsdom
// The user menu's Change password against the real accounts service: the form's own rules in
// words, the service's refusal of a wrong current password shown in the dialog, then a change
// after which the new password signs in and the old one does not.
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { startPeople, type People } from '../test-support/people-engine.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { ChangePasswordModal } from './ChangePasswordModal.tsx';

const SLOW = { timeout: 15_000 };
const OLD = 'bob-password-12';
const NEW = 'a new longer passphrase';

describe('Change password', () => {
  let ui: EngineUi | undefined;
  let people: People | undefined;
  afterEach(async () => {
    await ui?.close();
    await people?.close();
  });

  it('checks the form, shows a wrong current password, then changes it', { timeout: 120_000 }, async () => {
    people = await startPeople({ user: 'bob', role: 'viewer', groups: [], via: 'session' });
    await people.addUser({ name: 'alice', role: 'admin', password: 'alice-password-1' });
    await people.addUser({ name: 'bob', role: 'viewer', password: OLD });
    ui = await startEngineUi({ api: (e) => people!.api(e.engine), identity: people.identity });
    ui.render(<ChangePasswordModal open onClose={() => undefined} />);
    const user = userEvent.setup();
    const form = await screen.findByTestId('change-password-form', {}, SLOW);
    const dialog = form.closest('[role="dialog"]') as HTMLElement;
    const field = (id: string) => dialog.querySelector<HTMLInputElement>(`#change-password_${id}`) as HTMLInputElement;
    const problems = () => [...dialog.querySelectorAll('.ant-form-item-explain-error')].map((e) => e.textContent);

    await user.type(field('next'), 'short');
    await user.type(field('again'), 'other');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    await waitFor(
      () =>
        expect(problems()).toEqual([
          'Enter your current password.',
          'A password has at least 12 characters.',
          'The two passwords differ.',
        ]),
      SLOW,
    );

    await user.type(field('current'), 'not my password');
    await user.clear(field('next'));
    await user.type(field('next'), NEW);
    await user.clear(field('again'));
    await user.type(field('again'), NEW);
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    const refused = await within(dialog).findByTestId('change-password-error', {}, SLOW);
    expect(refused.textContent).toMatch(/password/i);
    expect((await people.access.signIn('bob', OLD, undefined)).ok).toBe(true);

    await user.clear(field('current'));
    await user.type(field('current'), OLD);
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    await screen.findByText('Password changed', {}, SLOW);
    expect((await people.access.signIn('bob', NEW, undefined)).ok).toBe(true);
    expect((await people.access.signIn('bob', OLD, undefined)).ok).toBe(false);
  });
});
