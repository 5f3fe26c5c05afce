// What a task process sees: the AX_* variables of design.md §5, its own env and working dir, and its
// stdout/stderr kept apart in the log.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;
let workDir: string;

beforeAll(async () => {
  t = await startTestEngine();
  workDir = fs.realpathSync(tempDir('ax-env-cwd-'));
});

afterAll(async () => {
  await t?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** Lines "NAME=value" as a map (a value may contain "="). */
function vars(lines: string[]): Map<string, string> {
  return new Map(
    lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: task environment', () => {
  it('passes AX_WORKFLOW, AX_TASK, AX_RUN_ID, AX_INSTANCE_ID, AX_ATTEMPT and AX_LOGICAL_TIME', async () => {
    await t.apply(`
workflow: env-ax
tasks:
  show:
    command: |
      for v in AX_WORKFLOW AX_TASK AX_RUN_ID AX_INSTANCE_ID AX_ATTEMPT AX_LOGICAL_TIME; do
        printf '%s=%s\\n' "$v" "$(printenv "$v")"
      done
`);
    const { run, instances } = await t.runToEnd('env-ax');
    expect(run.state).toBe('SUCCESS');
    const inst = instances[0];
    expect(inst).toBeDefined();
    const seen = vars(await t.logText(inst!.id));
    expect(Object.fromEntries(seen)).toEqual({
      AX_WORKFLOW: 'env-ax',
      AX_TASK: 'show',
      AX_RUN_ID: String(run.id),
      AX_INSTANCE_ID: String(inst!.id),
      AX_ATTEMPT: '1',
      AX_LOGICAL_TIME: new Date(run.logicalTime).toISOString(),
    });
    expect(seen.get('AX_LOGICAL_TIME')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('passes the task env exactly and runs in the task cwd; AX_* cannot be spoofed by the task env', async () => {
    const tricky = `it's "quoted" $HOME \`id\` ; ok`;
    fs.writeFileSync(path.join(workDir, 'marker.txt'), 'here\n');
    await t.apply(`
workflow: env-task
tasks:
  show:
    cwd: ${JSON.stringify(workDir)}
    env:
      GREETING: hello world
      TRICKY: ${JSON.stringify(tricky)}
      VERSION_NUMBER: 1.10
      AX_TASK: spoofed
    command: |
      printf 'GREETING=%s\\n' "$GREETING"
      printf 'TRICKY=%s\\n' "$TRICKY"
      printf 'VERSION_NUMBER=%s\\n' "$VERSION_NUMBER"
      printf 'AX_TASK=%s\\n' "$AX_TASK"
      printf 'PWD=%s\\n' "$(pwd -P)"
      cat marker.txt
`);
    const { run, instances } = await t.runToEnd('env-task');
    expect(run.state).toBe('SUCCESS');
    const lines = await t.logText(instances[0]!.id);
    expect(Object.fromEntries(vars(lines))).toEqual({
      GREETING: 'hello world',
      TRICKY: tricky,
      VERSION_NUMBER: '1.10',
      AX_TASK: 'show',
      PWD: workDir,
    });
    expect(lines).toContain('here');
  });

  it('fails a task whose cwd does not exist, saying which directory', async () => {
    const missing = path.join(workDir, 'does-not-exist');
    await t.apply(`
workflow: env-bad-cwd
tasks:
  show:
    cwd: ${JSON.stringify(missing)}
    command: echo never
`);
    const { run, instances } = await t.runToEnd('env-bad-cwd');
    expect(run.state).toBe('FAILED');
    expect(instances[0]?.state).toBe('FAILED');
    expect(instances[0]?.reason).toContain(missing);
    expect((await t.logText(instances[0]!.id)).join('\n')).toContain(missing);
  });

  it('keeps stdout and stderr apart, in order per stream', async () => {
    await t.apply(`
workflow: env-streams
tasks:
  both:
    command: echo out1; echo err1 >&2; echo out2; echo err2 >&2
`);
    const { run, instances } = await t.runToEnd('env-streams');
    expect(run.state).toBe('SUCCESS');
    const logs = await t.engine.readLogs(instances[0]!.id, 0, 100);
    expect(logs.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual(['out1', 'out2']);
    expect(logs.filter((l) => l.stream === 'stderr').map((l) => l.line)).toEqual(['err1', 'err2']);
    // seq numbers are unique and gapless, whatever the interleaving of the two pipes
    expect(logs.map((l) => l.seq)).toEqual([1, 2, 3, 4]);
  });
});
