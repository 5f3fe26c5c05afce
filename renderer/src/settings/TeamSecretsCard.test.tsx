// @vitest-environment jsdom
// The Team secrets card against a real engine with team secrets (SQLite and a team key in a temp
// dir; the people API answers whoami as the test's person): an admin sets one (the value never
// comes back to the page) and removes one; an editor may change only group-less secrets and their
// own group's, the others' Remove is disabled and the form says why; a viewer gets no form, only why.
import '../test-support/dom-shims.ts';
import { StyleProvider } from '@ant-design/cssinjs';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App as AntApp, ConfigProvider } from 'antd';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../engine/api/access.ts';
import type { Engine } from '../../../engine/core/engine.ts';
import { ThemeContext } from '../app/theme-context.ts';
import { ApiProvider, createQueryClient, EngineConnection } from '../engine-client/index.ts';
import '../i18n/index.ts';
import { memoryTransport } from '../test-support/memory-transport.ts';
import { WAVE_OFF } from '../test-support/render-with-engine.tsx';
import { TeamSecretsCard } from './TeamSecretsCard.tsx';

const VALUE = 'ui-team-secret-3b7d9e';
let person: Principal = { user: 'ada', role: 'admin', groups: [], via: 'session' };
let engine: Engine;
let dir: string;

/** The engine's modules, loaded with a file URL as the page's location (see render-with-engine.tsx). */
async function openEngine(): Promise<Engine> {
  const page = globalThis.self;
  Object.defineProperty(globalThis, 'self', { configurable: true, writable: true, value: { location: 'file:///' } });
  try {
    const [core, sqlite, table, coordinator, runner, clock, defaults, key, solo] = await Promise.all([
      import('../../../engine/core/engine.ts'),
      import('../../../engine/adapters/sql/sqlite-store.ts'),
      import('../../../engine/adapters/sql/team-secret-queries.ts'),
      import('../../../engine/adapters/memory/memory-coordinator.ts'),
      import('../../../engine/adapters/process/node-process-runner.ts'),
      import('../../../engine/adapters/system-clock.ts'),
      import('../../../engine/hosts/node/host-defaults.ts'),
      import('../../../engine/hosts/node/team-secret-key.ts'),
      import('../../../engine/core/access/solo-access.ts'),
    ]);
    key.initTeamKey(dir);
    const store = await sqlite.openSqliteStore(path.join(dir, 'ax.db'));
    return new core.Engine({
      ...defaults.nodeHostDefaults(),
      store,
      coordinator: new coordinator.MemoryCoordinator(),
      runner: new runner.NodeProcessRunner(),
      clock: clock.systemClock,
      nodeId: 'ui-test',
      runScheduler: false,
      access: { ...solo.soloAccess('ada'), whoami: async () => person },
      teamSecrets: { store: new table.SqlTeamSecretStore(store.db), cipher: key.teamCipher(dir) },
    });
  } finally {
    Object.defineProperty(globalThis, 'self', { configurable: true, writable: true, value: page });
  }
}

function renderCard() {
  const connection = new EngineConnection({
    connect: async () => memoryTransport(engine),
    checkSession: async () => true,
  });
  connection.start();
  const view = render(
    <StyleProvider container={document.createElement('div')}>
      <ConfigProvider wave={WAVE_OFF}>
        <ThemeContext.Provider value={{ choice: 'light', dark: false, setChoice: () => undefined }}>
          <AntApp>
            <ApiProvider connection={connection} queryClient={createQueryClient()}>
              <TeamSecretsCard />
            </ApiProvider>
          </AntApp>
        </ThemeContext.Provider>
      </ConfigProvider>
    </StyleProvider>,
  );
  return {
    close: () => {
      view.unmount();
      connection.stop();
    },
  };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-team-secrets-ui-'));
  engine = await openEngine();
  await engine.setTeamSecret({ name: 'billing-key', group: 'billing', value: 'bill-value-1' }, 'ada');
});
afterAll(async () => {
  await engine?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the Team secrets card', () => {
  it(
    'lets an admin set a secret for a group and remove one; no value reaches the page',
    { timeout: 60_000 },
    async () => {
      person = { user: 'ada', role: 'admin', groups: [], via: 'session' };
      const card = renderCard();
      try {
        const user = userEvent.setup();
        expect(await screen.findByText('billing-key')).toBeTruthy();
        await user.type(screen.getByRole('textbox', { name: 'Secret name' }), 'warehouse');
        await user.type(screen.getByRole('textbox', { name: 'Group' }), 'data-team');
        await user.type(screen.getByLabelText('Secret value'), VALUE);
        await user.click(screen.getByRole('button', { name: 'Save' }));
        expect(await screen.findByText('Team secret warehouse saved, encrypted.')).toBeTruthy();
        const row = (await screen.findByText('warehouse')).closest('tr') as HTMLElement;
        expect(within(row).getByText('data-team')).toBeTruthy();
        // set by the UI's actor: behind a server, the connection's identity replaces it
        expect(within(row).getByText('ui')).toBeTruthy();
        // The form is cleared and the value is nowhere on the page.
        await waitFor(() => expect(document.body.innerHTML).not.toContain(VALUE));
        expect((await engine.listTeamSecrets()).map((s) => s.name)).toEqual(['billing-key', 'warehouse']);

        await user.click(screen.getByRole('button', { name: 'Remove team secret warehouse' }));
        await user.click(await screen.findByRole('button', { name: 'OK' }));
        expect(await screen.findByText('Team secret warehouse removed.')).toBeTruthy();
        expect((await engine.listTeamSecrets()).map((s) => s.name)).toEqual(['billing-key']);
      } finally {
        card.close();
      }
    },
  );

  it(
    "offers an editor only their group's and group-less secrets, saying why not for the others",
    { timeout: 60_000 },
    async () => {
      person = { user: 'dan', role: 'editor', groups: ['data-team'], via: 'session' };
      const card = renderCard();
      try {
        const user = userEvent.setup();
        await screen.findByText('billing-key');
        const remove = screen.getByRole('button', { name: 'Remove team secret billing-key' }) as HTMLButtonElement;
        expect(remove.disabled).toBe(true);
        await user.type(screen.getByRole('textbox', { name: 'Secret name' }), 'x');
        await user.type(screen.getByLabelText('Secret value'), 'some-value');
        await user.type(screen.getByRole('textbox', { name: 'Group' }), 'billing');
        expect(screen.getByText('Only admins and editors in group billing may change its secrets.')).toBeTruthy();
        expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
        await user.clear(screen.getByRole('textbox', { name: 'Group' }));
        await user.type(screen.getByRole('textbox', { name: 'Group' }), 'data-team');
        expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(false);
      } finally {
        card.close();
      }
    },
  );

  it('shows a viewer the list and why they cannot change it, with no form', { timeout: 60_000 }, async () => {
    person = { user: 'vic', role: 'viewer', groups: ['billing'], via: 'session' };
    const card = renderCard();
    try {
      await screen.findByText('billing-key');
      expect(
        await screen.findByText(
          "Setting and removing team secrets needs the editor role (in the secret's group) or admin; you are viewer.",
        ),
      ).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    } finally {
      card.close();
    }
  });
});
