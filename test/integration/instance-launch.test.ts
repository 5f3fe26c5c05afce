// What an attempt ran, through a real engine: getInstance returns the command, cwd and the
// variables AX set (secret values masked, the worker's own environment left out); lists of
// instances do not carry it; a start that fails (no such cwd) still records what it tried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const VALUE = 'tok-91c2e7-launch-private';
let t: TestEngine;
let cwd: string;

beforeAll(async () => {
  const dir = tempDir('ax-launch-engine-');
  new SecretsFile(dir).set('api-token', VALUE, 'test');
  t = await startTestEngine({ dir });
  cwd = tempDir('ax-launch-cwd-');
});
afterAll(async () => {
  await t?.close();
});

// Skipped on Windows only: the tasks are POSIX shell commands.
describe.skipIf(process.platform === 'win32')('engine: an instance records what it ran', () => {
  it('getInstance returns the command, cwd and AX variables with the secret masked; lists leave it out', async () => {
    await t.apply(`
workflow: launch-facts
tasks:
  call:
    command: echo "calling with $API_TOKEN"
    cwd: ${JSON.stringify(cwd)}
    env:
      API_TOKEN: { secret: api-token }
      URL_WITH_TOKEN: "https://me:${VALUE}@example.com/x"
      PLAIN: visible
`);
    const { run, instances } = await t.runToEnd('launch-facts');
    expect(run.state).toBe('SUCCESS');
    const listed = instances[0]!;
    expect(listed.launch).toBeUndefined();

    const inst = await t.engine.getInstance(listed.id);
    const launch = inst.launch!;
    expect(launch.command).toBe('echo "calling with $API_TOKEN"');
    expect(launch.cwd).toBe(cwd);
    expect(launch.env).toMatchObject({
      API_TOKEN: '***',
      URL_WITH_TOKEN: 'https://***@example.com/x',
      PLAIN: 'visible',
      AX_WORKFLOW: 'launch-facts',
      AX_TASK: 'call',
      AX_RUN_ID: String(run.id),
      AX_INSTANCE_ID: String(listed.id),
      AX_ATTEMPT: '1',
    });
    expect(JSON.stringify(inst)).not.toContain(VALUE);
    // The worker's own environment is not what AX set.
    expect(launch.env.PATH).toBeUndefined();
    expect(Object.keys(launch.env)).toEqual([...Object.keys(launch.env)].sort((a, b) => a.localeCompare(b)));
  });

  it('a start that fails still records what it tried to run', async () => {
    const missing = `${cwd}/not-there`;
    await t.apply(`
workflow: launch-missing-cwd
tasks:
  nowhere:
    command: "true"
    cwd: ${JSON.stringify(missing)}
`);
    const { run, instances } = await t.runToEnd('launch-missing-cwd');
    expect(run.state).toBe('FAILED');
    const inst = await t.engine.getInstance(instances[0]!.id);
    expect(inst.reason).toContain('does not exist');
    expect(inst.launch).toMatchObject({ command: 'true', cwd: missing, env: { AX_TASK: 'nowhere' } });
  });
});
