// Task secrets in a solo engine: the task sees the value in its environment, its log shows ***
// wherever it printed it, the value is in neither the database file nor the exported workflow,
// and a task whose secret this node lacks fails at start with a reason naming the secret.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

// Written split in the command below ("…""…"), so only the secret itself can put it anywhere.
const VALUE = 'tok-5f3a9c-very-private';
let t: TestEngine;

beforeAll(async () => {
  const dir = tempDir('ax-secrets-engine-');
  new SecretsFile(dir).set('api-token', VALUE, 'test');
  t = await startTestEngine({ dir });
});
afterAll(async () => {
  await t?.close();
});

// Skipped on Windows only: the tasks are POSIX shell commands.
describe.skipIf(process.platform === 'win32')('engine: task secrets', () => {
  it('gives the task its secret in env and masks it in the log; the database and export hold only the name', async () => {
    await t.apply(`
workflow: uses-secret
tasks:
  call:
    command: |
      echo "token=$API_TOKEN"
      echo "inside:$API_TOKEN:twice:$API_TOKEN" >&2
      test "$API_TOKEN" = "tok-5f3a9c-""very-private" && echo matched
    env:
      API_TOKEN: { secret: api-token }
      PLAIN: visible
`);
    const { run, instances } = await t.runToEnd('uses-secret');
    expect(run.state).toBe('SUCCESS');
    const lines = await t.logText(instances[0]!.id);
    expect(lines).toEqual(expect.arrayContaining(['token=***', 'inside:***:twice:***', 'matched']));
    expect(lines.join('\n')).not.toContain(VALUE);

    const exported = await t.engine.exportWorkflow('uses-secret');
    expect(exported.tasks[0]!.env).toEqual({ API_TOKEN: { secret: 'api-token' }, PLAIN: 'visible' });
    const yaml = serializeWorkflow(exported);
    expect(yaml).toContain('API_TOKEN:\n        secret: api-token');
    expect(yaml).not.toContain(VALUE);

    // Everything the engine wrote to its database, the WAL included.
    const files = fs.readdirSync(t.dir).filter((f) => f.startsWith('ax.db'));
    expect(files).toContain('ax.db');
    for (const f of files) expect(fs.readFileSync(path.join(t.dir, f)).includes(Buffer.from(VALUE)), f).toBe(false);
  });

  it('fails a task whose secret is not set on this node, naming the secret and how to set it', async () => {
    await t.apply(`
workflow: lacks-secret
tasks:
  call:
    command: echo should-not-run
    env:
      DB_PASSWORD: { secret: db-password }
`);
    const { run, instances } = await t.runToEnd('lacks-secret');
    expect(run.state).toBe('FAILED');
    const inst = instances[0]!;
    expect(inst.state).toBe('FAILED');
    expect(inst.reason).toContain('secret "db-password" (env DB_PASSWORD) is not set on this worker');
    expect(inst.reason).toContain('ax secrets set db-password');
    const lines = await t.logText(inst.id);
    expect(lines.join('\n')).not.toContain('should-not-run');
    expect(lines.join('\n')).toContain('db-password');
  });

  it('fails the task, not the worker, when the secrets file cannot be read', async () => {
    const file = path.join(t.dir, 'task-secrets.json');
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, '{ not json');
    try {
      const { run, instances } = await t.runToEnd('uses-secret');
      expect(run.state).toBe('FAILED');
      expect(instances[0]!.reason).toMatch(
        /^could not start: secret "api-token" \(env API_TOKEN\) could not be read: cannot read .*task-secrets\.json/,
      );
    } finally {
      fs.writeFileSync(file, good);
    }
    expect((await t.runToEnd('uses-secret')).run.state).toBe('SUCCESS');
  });

  it('picks up a secret set while the engine runs, at the next task start', async () => {
    new SecretsFile(t.dir).set('db-password', 'pw-set-later', 'test');
    const { run, instances } = await t.runToEnd('lacks-secret');
    expect(run.state).toBe('SUCCESS');
    expect(await t.logText(instances[0]!.id)).toContain('should-not-run');
  });
});
