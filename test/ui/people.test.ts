// The UI with people in it, in Chromium against a REAL team-mode server with accounts (a team
// engine on MariaDB + Redis with its accounts service, startApiServer with accounts on, serving
// dist/ui): sign in with a password (a wrong one said in words, a locked account says for how
// long), the user menu, an admin adds a user and makes a token (shown once), a viewer sees Run now
// disabled saying why and no admin pages; screenshots light/dark, en/zh-CN, 1440×900 and 1024×700.
import path from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { startApiServer } from '../../engine/server/ws-server.ts';
import { type AuthServer, NODE_TOKEN, openAuthServer, PASSWORD } from '../helpers/team/auth-server.ts';
import { SKIP_REASON } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { animationsDone, browserSkipReason, launchBrowser, screenshot, type UiPageOptions } from '../helpers/ui.ts';

const available = await teamServicesAvailable();
const browserSkip = browserSkipReason();
const UI_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist/ui');

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 1024, height: 700 };
/** each scheme, language and size at least once */
const LOOKS: (UiPageOptions & { tag: string })[] = [
  { tag: 'light-en-1440', colorScheme: 'light', locale: 'en-US', viewport: WIDE },
  { tag: 'dark-zh-1440', colorScheme: 'dark', locale: 'zh-CN', viewport: WIDE },
  { tag: 'light-zh-1024', colorScheme: 'light', locale: 'zh-CN', viewport: NARROW },
  { tag: 'dark-en-1024', colorScheme: 'dark', locale: 'en-US', viewport: NARROW },
];

// Skipped off CI only: without MariaDB/Redis (SKIP_REASON) or without Chromium / the built UI (its
// reason); under CI=true either is a failure (teamServicesAvailable and browserSkipReason throw).
describe.skipIf(!available || browserSkip)(
  `the UI with accounts (${!available ? SKIP_REASON : (browserSkip ?? 'runs')})`,
  () => {
    let server: AuthServer;
    let browser: Browser;

    beforeAll(async () => {
      server = await openAuthServer('ui_people', { uiDir: UI_DIR });
      await server.admin.addUser({ name: 'alice', role: 'admin', groups: ['ops'], password: PASSWORD }, 'test');
      await server.admin.addUser({ name: 'bob', role: 'viewer', groups: ['data-team'], password: PASSWORD }, 'test');
      await server.admin.addUser({ name: 'dave', role: 'operator', password: PASSWORD }, 'test');
      const { spec } = parseWorkflowFile('workflow: hello\nowner: data-team\ntasks:\n  say:\n    command: echo hi\n', {
        defaultTimezone: 'UTC',
      });
      await server.admin.apply(spec, 'test');
      browser = await launchBrowser();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    async function openPage(look: UiPageOptions = {}): Promise<Page> {
      const context = await browser.newContext({
        colorScheme: look.colorScheme ?? 'light',
        locale: look.locale ?? 'en-US',
        viewport: look.viewport ?? WIDE,
      });
      const page = await context.newPage();
      await page.goto(server.base);
      await page.getByTestId('password-sign-in').waitFor({ timeout: 20_000 });
      return page;
    }

    async function signIn(page: Page, user: string, password = PASSWORD): Promise<void> {
      await page.locator('#user').fill(user);
      await page.locator('#password').fill(password);
      await page.locator('[data-testid="password-sign-in"] button[type="submit"]').click();
    }

    const missingKeys = (page: Page) => page.evaluate(() => window.__axMissingKeys ?? []);

    it('signs in with a password: a wrong one is said in words, then the right one; the user menu', async () => {
      const page = await openPage();
      expect(await page.textContent('body')).not.toContain('ax open'); // not the link help of solo
      await screenshot(page, 'people-sign-in-light-en-1440');
      await signIn(page, 'alice', 'not the password');
      await page.getByText('Wrong user name or password.').waitFor({ timeout: 15_000 });
      await animationsDone(page);
      await screenshot(page, 'people-sign-in-wrong-light-en-1440');
      await signIn(page, 'alice');
      await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
      // HttpOnly session cookie, nothing readable by the page
      const cookies = await page.context().cookies();
      expect(cookies).toEqual([expect.objectContaining({ name: 'ax_session', httpOnly: true, sameSite: 'Lax' })]);

      await page.getByTestId('user-menu').click();
      const who = page.getByTestId('user-menu-who');
      await who.waitFor();
      expect(await who.innerText()).toMatch(/alice[\s\S]*admin[\s\S]*ops/);
      await animationsDone(page);
      await screenshot(page, 'people-user-menu-light-en-1440');
      // admins see Users, Tokens and the audit log
      for (const entry of ['Users', 'API tokens', 'Audit log'])
        expect(await page.locator('nav').getByText(entry, { exact: true }).count()).toBe(1);

      // sign out: back to the sign-in page, and the cookie is gone
      await page.locator('.ant-dropdown-menu-item').getByText('Sign out', { exact: true }).click();
      await page.getByTestId('password-sign-in').waitFor({ timeout: 15_000 });
      expect(await page.context().cookies()).toEqual([]);
      expect(await missingKeys(page)).toEqual([]);
      await page.context().close();
    });

    it('a locked account says for how long', async () => {
      const page = await openPage();
      for (let i = 0; i < 6; i++) {
        await signIn(page, 'dave', `wrong ${i}`);
        await page.getByTestId('sign-in-refused').waitFor({ timeout: 15_000 });
        if ((await page.getByTestId('sign-in-refused').innerText()).includes('locked')) break;
      }
      const refusal = await page.getByTestId('sign-in-refused').innerText();
      expect(refusal).toMatch(/locked after too many wrong passwords: try again in 1[45] min/);
      await animationsDone(page);
      await screenshot(page, 'people-sign-in-locked-light-en-1440');
      await page.context().close();
    });

    it('an admin adds a user and makes a token, shown once', async () => {
      const page = await openPage();
      await signIn(page, 'alice');
      await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
      await page.goto(`${server.base}/#/users`);
      await page.getByTestId('user-bob').waitFor({ timeout: 20_000 });
      await page.getByTestId('add-user').click();
      const dialog = page.getByRole('dialog');
      await dialog.locator('#user-form_name').fill('carol');
      await dialog.locator('#user-form_password').fill('short');
      await dialog.getByRole('button', { name: 'Add user' }).click();
      await dialog.getByText('A password has at least 12 characters.').waitFor();
      await dialog.locator('#user-form_password').fill(PASSWORD);
      await dialog.locator('#user-form_again').fill(PASSWORD);
      await dialog.locator('#user-form_role').click();
      await page.locator('.ant-select-item-option', { hasText: 'operator' }).click();
      await dialog.getByRole('button', { name: 'Add user' }).click();
      await page.getByTestId('user-carol').waitFor({ timeout: 15_000 });
      expect((await server.admin.listUsers()).find((u) => u.name === 'carol')).toMatchObject({ role: 'operator' });
      await animationsDone(page);
      await screenshot(page, 'people-users-light-en-1440');

      await page.goto(`${server.base}/#/tokens`);
      await page.getByTestId('create-token').click();
      const form = page.getByTestId('token-form');
      await form.locator('#token-form_name').fill('grafana');
      await form.getByTestId('scope-read').uncheck();
      await form.getByTestId('scope-metrics').check();
      await page.getByRole('button', { name: 'New token' }).last().click();
      const shown = page.getByTestId('new-token');
      await shown.waitFor({ timeout: 15_000 });
      const token = await shown.inputValue();
      expect(token).toMatch(/^axt_/);
      expect(await page.getByTestId('token-once-warning').innerText()).toContain('only time it is shown');
      await animationsDone(page);
      await screenshot(page, 'people-token-once-light-en-1440');
      // the token works: /metrics answers it
      const metrics = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(metrics.status).toBe(200);
      await page.getByTestId('token-done').click();
      const row = page.locator('.ant-table-row', { hasText: 'grafana' });
      await row.waitFor();
      expect(await page.textContent('body')).not.toContain(token);
      expect(await row.innerText()).toContain('metrics');
      await screenshot(page, 'people-tokens-light-en-1440');
      expect(await missingKeys(page)).toEqual([]);
      await page.context().close();
    });

    it('a viewer sees Run now disabled saying why, and no admin pages', async () => {
      const page = await openPage();
      await signIn(page, 'bob');
      await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
      for (const entry of ['Users', 'Audit log'])
        expect(await page.locator('nav').getByText(entry, { exact: true }).count(), entry).toBe(0);
      await page.goto(`${server.base}/#/workflows/hello`);
      const guarded = page.getByTestId('not-allowed').filter({ hasText: 'Run now' });
      await guarded.waitFor({ timeout: 20_000 });
      expect(await guarded.getAttribute('data-why')).toBe(
        'Needs the operator role — you are viewer. Ask an admin to change your role.',
      );
      expect(await guarded.getByRole('button').isDisabled()).toBe(true);
      await guarded.hover();
      await page.getByRole('tooltip').getByText('Needs the operator role').waitFor({ timeout: 10_000 });
      await animationsDone(page);
      await screenshot(page, 'people-viewer-run-now-light-en-1440');
      // Delete is left out for a viewer; Edit says why
      expect(await page.getByRole('button', { name: /delete/i }).count()).toBe(0);
      expect(await missingKeys(page)).toEqual([]);
      await page.context().close();
    });

    it('offers "Sign in with …" when the server has SSO, coming back to the page asked for', async () => {
      // a second server of the same engine whose /auth/config names a provider (the OIDC flow
      // itself is test/team/oidc-sso.test.ts's)
      const sso = await startApiServer({
        api: server.engine,
        token: NODE_TOKEN,
        accounts: server.engine.authenticator,
        uiDir: UI_DIR,
        authConfig: () => ({ accounts: true, local: true, sso: { label: 'Company SSO' } }),
      });
      try {
        const context = await browser.newContext({ viewport: NARROW, colorScheme: 'dark', locale: 'zh-CN' });
        const page = await context.newPage();
        await page.goto(`http://127.0.0.1:${sso.port}/#/runs`);
        const button = page.getByTestId('sso-sign-in');
        await button.waitFor({ timeout: 20_000 });
        expect(await button.innerText()).toContain('使用 Company SSO 登录');
        expect(await button.getAttribute('href')).toBe('/auth/oidc/start?return=%2F%23%2Fruns');
        await animationsDone(page);
        await screenshot(page, 'people-sign-in-sso-dark-zh-1024');
        expect(await missingKeys(page)).toEqual([]);
        await context.close();
      } finally {
        await sso.close();
      }
    });

    for (const look of LOOKS)
      it(`looks: sign-in, users, tokens, a viewer's workflow (${look.tag})`, async () => {
        const page = await openPage(look);
        await animationsDone(page);
        await screenshot(page, `people-look-sign-in-${look.tag}`);
        await signIn(page, 'alice');
        await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
        await page.goto(`${server.base}/#/users`);
        await page.getByTestId('user-bob').waitFor({ timeout: 20_000 });
        await animationsDone(page);
        await screenshot(page, `people-look-users-${look.tag}`);
        await page.goto(`${server.base}/#/tokens?user=*`);
        await page.locator('.ant-table').waitFor({ timeout: 20_000 });
        await page.getByTestId('create-token').click();
        await page.getByTestId('token-form').waitFor();
        await animationsDone(page);
        await screenshot(page, `people-look-token-form-${look.tag}`);
        await page.keyboard.press('Escape');
        await page.goto(`${server.base}/#/audit`);
        await page.locator('.ant-table-row').first().waitFor({ timeout: 20_000 });
        await animationsDone(page);
        await screenshot(page, `people-look-audit-${look.tag}`);
        // who did it carries the role and the address; Detail keeps a column wide enough for words
        // at 1024 px (it was squeezed to a letter a line, each row a screen tall)
        expect(await page.getByTestId('audit-role').first().innerText()).toBe(
          look.locale === 'zh-CN' ? '管理员' : 'admin',
        );
        expect(await page.getByTestId('audit-address').first().innerText()).toContain('127.0.0.1');
        const detail = await page.locator('.ant-table-thead th').last().boundingBox();
        expect(detail?.width).toBeGreaterThanOrEqual(140);
        expect(await missingKeys(page)).toEqual([]);
        await page.context().close();
      });
  },
);
