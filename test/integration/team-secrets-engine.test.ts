// Team secrets at the engine (over a real SQLite store and a real key; the team integration test
// runs them on MariaDB and Redis): who may set, replace, move and remove one (the group rule the
// API's authorizer cannot see: the group a secret already has), and that no answer, error or
// audit entry ever carries a value. Solo engines refuse them, saying so.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { SqlTeamSecretStore } from '../../engine/adapters/sql/team-secret-queries.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import type { NotedActor } from '../../engine/api/actor.ts';
import { Engine } from '../../engine/core/engine.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';
import { initTeamKey, teamCipher } from '../../engine/hosts/node/team-secret-key.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine } from '../helpers/solo-engine.ts';

const VALUE = 'wh-pass-93b1c7e2d4';
const BILLING_VALUE = 'bill-key-5e0a61f8';
let dir: string;
let store: SqlStore;
let engine: Engine;

const person = (name: string, role: string, groups: string[]): NotedActor => ({ name, role, groups });
const admin = person('ada', 'admin', []);
const dataEditor = person('dan', 'editor', ['data-team']);
const billingEditor = person('bea', 'editor', ['billing']);
const operator = person('otto', 'operator', ['data-team']);

beforeAll(async () => {
  dir = tempDir('ax-team-secrets-engine-');
  initTeamKey(dir);
  store = await openSqliteStore(path.join(dir, 'ax.db'));
  engine = new Engine({
    ...nodeHostDefaults(),
    store,
    coordinator: new MemoryCoordinator(),
    runner: new NodeProcessRunner(),
    clock: systemClock,
    nodeId: 'test',
    runScheduler: false,
    teamSecrets: { store: new SqlTeamSecretStore(store.db), cipher: teamCipher(dir) },
  });
});
afterAll(async () => {
  await engine?.dispose();
});

describe('team secrets: who may change them', () => {
  it('an admin sets any; an editor sets their group and group-less ones; the list has no values', async () => {
    await engine.setTeamSecret({ name: 'billing-key', group: 'billing', value: BILLING_VALUE }, admin);
    const set = await engine.setTeamSecret({ name: 'warehouse', group: 'data-team', value: VALUE }, dataEditor);
    expect(set).toEqual({ name: 'warehouse', group: 'data-team', setBy: 'dan', setAt: expect.any(Number) });
    await engine.setTeamSecret({ name: 'shared', value: 'shared-value-1' }, dataEditor);
    const listed = await engine.listTeamSecrets();
    expect(listed.map((s) => [s.name, s.group, s.setBy])).toEqual([
      ['billing-key', 'billing', 'ada'],
      ['shared', undefined, 'dan'],
      ['warehouse', 'data-team', 'dan'],
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/wh-pass|bill-key|shared-value|ciphertext|iv/);
  });

  it("refuses an editor another group's secret: setting it there, replacing it, moving it out, removing it", async () => {
    await expect(
      engine.setTeamSecret({ name: 'new-one', group: 'billing', value: 'x-value-1' }, dataEditor),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: 'only admins and editors in group "billing" may set its secrets (dan\'s groups: "data-team")',
    });
    // The request names no group (which any editor may set): the secret's own group decides.
    await expect(engine.setTeamSecret({ name: 'billing-key', value: 'x-value-2' }, dataEditor)).rejects.toMatchObject({
      code: 'forbidden',
      message:
        'team secret "billing-key" belongs to group "billing": only admins and editors in "billing" may replace, move or remove it (dan\'s groups: "data-team")',
    });
    await expect(
      engine.setTeamSecret({ name: 'billing-key', group: 'data-team', value: 'x-value-3' }, dataEditor),
    ).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('belongs to group "billing"') });
    await expect(engine.removeTeamSecret('billing-key', dataEditor)).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('only admins and editors in "billing" may replace, move or remove it'),
    });
    await expect(engine.removeTeamSecret('shared', operator)).rejects.toMatchObject({
      code: 'forbidden',
      message: "changing team secrets needs the editor role (in the secret's group) or admin; otto is operator",
    });
    // Nothing changed.
    const billing = (await engine.listTeamSecrets()).find((s) => s.name === 'billing-key');
    expect(billing).toMatchObject({ group: 'billing', setBy: 'ada' });
  });

  it("lets the group's editor move its secret out of the group, and remove it; admins remove any", async () => {
    await engine.setTeamSecret({ name: 'billing-key', value: BILLING_VALUE }, billingEditor);
    expect((await engine.listTeamSecrets()).find((s) => s.name === 'billing-key')?.group).toBeUndefined();
    await engine.setTeamSecret({ name: 'billing-key', group: 'billing', value: BILLING_VALUE }, billingEditor);
    await engine.removeTeamSecret('billing-key', billingEditor);
    await engine.setTeamSecret({ name: 'billing-key', group: 'billing', value: BILLING_VALUE }, admin);
    await engine.removeTeamSecret('billing-key', admin);
    await expect(engine.removeTeamSecret('billing-key', admin)).rejects.toMatchObject({
      code: 'not_found',
      message: 'no team secret "billing-key": "ax secrets ls --team" lists them',
    });
  });

  it('refuses bad input with the fix, without quoting the value', async () => {
    await expect(engine.setTeamSecret({ name: 'bad name', value: VALUE }, admin)).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('"bad name" is not a valid secret name'),
    });
    await expect(engine.setTeamSecret({ name: 'empty', value: '' }, admin)).rejects.toMatchObject({
      message: expect.stringContaining('printf %s "$TOKEN" | ax secrets set empty --team'),
    });
    const nul = `${VALUE}\0tail`;
    const err = await engine.setTeamSecret({ name: 'nul', value: nul }, admin).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/holds a NUL byte .*nothing was stored/);
    expect((err as Error).message).not.toContain(VALUE);
    await expect(engine.setTeamSecret({ name: 'big', value: 'x'.repeat(65 * 1024) }, admin)).rejects.toMatchObject({
      message: expect.stringContaining('is over 64 KiB'),
    });
  });

  it('keeps no value in the clear: not in the database file, not in the audit', async () => {
    const audit = await engine.listAudit(50);
    const secretEntries = audit.filter((a) => a.object.startsWith('team-secret:'));
    expect(secretEntries.map((a) => [a.action, a.object, a.actor, a.detail]).slice(0, 3)).toEqual([
      ['secret.remove', 'team-secret:billing-key', 'ada', 'group billing'],
      ['secret.set', 'team-secret:billing-key', 'ada', 'group billing'],
      ['secret.remove', 'team-secret:billing-key', 'bea', 'group billing'],
    ]);
    // Newest first: moved out of billing by its editor, then back in.
    expect(secretEntries.filter((a) => a.detail?.includes('(was')).map((a) => [a.action, a.detail])).toEqual([
      ['secret.update', 'group billing (was no group)'],
      ['secret.update', 'no group (was billing)'],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/wh-pass|bill-key|shared-value/);
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('ax.db')))
      expect(fs.readFileSync(path.join(dir, f)).includes(Buffer.from(VALUE)), f).toBe(false);
  });
});

describe('team secrets in solo mode', () => {
  it('are refused, saying they are team-only and what to use instead', async () => {
    const solo = await startTestEngine({ start: false });
    try {
      await expect(solo.engine.listTeamSecrets()).rejects.toMatchObject({
        code: 'validation',
        message: expect.stringContaining('team secrets exist in team mode only'),
      });
      await expect(solo.engine.setTeamSecret({ name: 'a', value: 'b-value' }, 'me')).rejects.toThrow(
        /on a solo node use "ax secrets set NAME"/,
      );
    } finally {
      await solo.close();
    }
  });
});
