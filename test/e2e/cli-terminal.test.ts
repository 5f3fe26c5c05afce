// Terminal safety: text from a workflow file, a task, the store or the command line reaches the
// screen with its control characters, escape sequences and bidi overrides shown escaped, never
// raw, through every command that prints it. Real `ax` processes on a temp data dir; the
// assertions are on the exact characters written.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { LogLine, WorkflowSpec } from '../../engine/api/types.ts';
import { ax, cliSandbox, limited } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-terminal-');

const ESC = '\u001b';
const BEL = '\u0007';
const RLO = '\u202e'; // right-to-left override: "\u202egnp.exe" reads as "exe.png"
const CSI = '\u009b'; // C1: a one-character ESC [
/** What a terminal would act on instead of showing (\t and \n are ours to print). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

const hostileCwd = `/nonexistent/${ESC}]0;PWNED${BEL}${ESC}[2J`;
const description = `desc ${ESC}[2J${RLO}txt.exe ${CSI}31m`;
const spec = {
  workflow: 'hostile',
  description,
  owner: `own${ESC}]0;PWNED${BEL}`,
  tasks: {
    'bad-cwd': { command: 'echo never', cwd: hostileCwd },
    noisy: {
      // An OSC title, a screen clear, \r progress, a bidi override; and an env value on stderr.
      command: `printf '\\033]0;PWNED\\007\\033[2J\\n10%%\\r20%%\\r40%%\\n\\342\\200\\256gnp.exe\\n'; echo "$MSG" >&2`,
      env: { MSG: `env ${ESC}[2J ${RLO}x`, BIDI: `gnp${RLO}.exe` },
    },
  },
};

/** The output as bytes too: no ESC, BEL or C1 byte pair, no bidi control, anywhere. */
function expectSafe(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toMatch(RAW);
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.includes(0x1b)).toBe(false);
    expect(bytes.includes(0x07)).toBe(false);
    expect(bytes.includes(Buffer.from(RLO))).toBe(false);
    expect(bytes.includes(Buffer.from([0xc2, 0x9b]))).toBe(false);
  }
}

let badId: number;
let noisyId: number;
let waited: Awaited<ReturnType<typeof ax>>;

beforeAll(async () => {
  // JSON is YAML too; JSON.stringify writes ESC as \u001b, which the YAML reader decodes.
  const file = writeFile(box.root, 'hostile.json', JSON.stringify(spec));
  // --force: the missing cwd is the point (validation warns about it, escaped too).
  waited = await ax(['run', file, '--wait', '--force'], box.opts());
  const detail = JSON.parse((await ax(['--json', 'runs', '1'], box.opts())).stdout) as RunDetail;
  badId = detail.instances.find((i) => i.taskName === 'bad-cwd')?.id as number;
  noisyId = detail.instances.find((i) => i.taskName === 'noisy')?.id as number;
  // An API client names itself: the actor of an audit entry is the network's text.
  const store = await openDataDirStore(box.dataDir);
  try {
    await store.audit({
      at: Date.now(),
      actor: `api:${ESC}]0;PWNED${BEL}${RLO}`,
      action: 'run.manual',
      object: 'workflow:hostile',
      detail: `x\ny${ESC}[2J`,
    });
  } finally {
    await store.close();
  }
}, 120_000);

describe('ax prints hostile text escaped', () => {
  it('run --wait: a failure reason quoting the cwd', () => {
    expect(waited.code).toBe(1);
    expectSafe(waited.stdout, waited.stderr);
    expect(waited.stdout).toContain(`/nonexistent/\\x1b]0;PWNED\\x07\\x1b[2J`);
    expect(waited.stdout).toMatch(/✗ bad-cwd FAILED .*\[instance \d+\] — could not start/);
    expect(waited.stderr).toContain('cwd: "/nonexistent/\\x1b]0;PWNED\\x07\\x1b[2J" does not exist');
  });

  it('runs RUN: the reason in a table cell; --json keeps the value', async () => {
    const [table, json] = await limited([
      () => ax(['runs', '1'], box.opts()),
      () => ax(['--json', 'runs', '1'], box.opts()),
    ]);
    expectSafe(table.stdout, table.stderr, json.stdout);
    expect(table.stdout).toMatch(/^\d+\s+bad-cwd\s.*could not start: .*\/nonexistent\/\\x1b]0;PWNED\\x07\\x1b\[2J/m);
    const reason = (JSON.parse(json.stdout) as RunDetail).instances.find((i) => i.id === badId)?.reason;
    expect(reason).toContain(hostileCwd);
  });

  it("logs: the engine's [ax] line is stored clean, task output keeps its last \\r state", async () => {
    const [bad, noisy, followed] = await limited([
      () => ax(['logs', String(badId)], box.opts()),
      () => ax(['logs', String(noisyId)], box.opts()),
      () => ax(['logs', String(noisyId), '--follow'], box.opts()),
    ]);
    expectSafe(bad.stdout, bad.stderr, noisy.stdout, noisy.stderr);
    expect([followed.stdout, followed.stderr]).toEqual([noisy.stdout, noisy.stderr]);
    expect(bad.stderr).toMatch(/^\[ax\] could not start: .*\/nonexistent\/\ufffd]0;PWNED\ufffd\ufffd\[2J/);
    expect(noisy.stdout).toBe('\ufffd]0;PWNED\ufffd\ufffd[2J\n40%\n\\u202egnp.exe\n');
    expect(noisy.stderr).toBe('env \ufffd[2J \\u202ex\n');
  });

  it('logs --json: valid JSON lines whose values keep the bidi override', async () => {
    const r = await ax(['--json', 'logs', String(noisyId)], box.opts());
    expectSafe(r.stdout);
    expect(r.stdout).toContain('"\\u202egnp.exe"');
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine);
    expect(lines.map((l) => l.line)).toEqual([
      '\ufffd]0;PWNED\ufffd\ufffd[2J',
      '40%',
      `${RLO}gnp.exe`,
      `env \ufffd[2J ${RLO}x`,
    ]);
  });

  it('audit: an API actor and a multi-line detail stay on one escaped line', async () => {
    const [table, json] = await limited([() => ax(['audit'], box.opts()), () => ax(['--json', 'audit'], box.opts())]);
    expectSafe(table.stdout, table.stderr, json.stdout);
    const row = table.stdout.split('\n').find((l) => l.includes('api:'));
    // WHO, NOTE (none: "-"), ACTION, OBJECT, DETAIL
    expect(row).toMatch(/api:\\x1b]0;PWNED\\x07\\u202e\s+-\s+run\.manual\s+workflow:hostile\s+x\\ny\\x1b\[2J$/);
    const actors = (JSON.parse(json.stdout) as { actor: string }[]).map((e) => e.actor);
    expect(actors).toContain(`api:${ESC}]0;PWNED${BEL}${RLO}`);
  });

  it('export: escaped on screen, and the printed YAML applies back to the same workflow', async () => {
    const r = await ax(['export', 'hostile'], box.opts());
    expect(r.code).toBe(0);
    expectSafe(r.stdout, r.stderr);
    expect(r.stdout).toContain('description: "desc \\e[2J\\u202etxt.exe \\u009b31m"');
    const back = writeFile(box.root, 'exported.yaml', r.stdout);
    const validated = await ax(['--json', 'validate', back], box.opts());
    expectSafe(validated.stdout, validated.stderr);
    const parsed = JSON.parse(validated.stdout) as WorkflowSpec;
    expect(parsed.description).toBe(description);
    expect(parsed.owner).toBe(spec.owner);
    expect(parsed.tasks.find((t) => t.name === 'bad-cwd')?.cwd).toBe(hostileCwd);
    expect(parsed.tasks.find((t) => t.name === 'noisy')?.env).toEqual(spec.tasks.noisy.env);
  });

  it("validate: problems that echo the file's text", async () => {
    const file = writeFile(
      box.root,
      'invalid.json',
      JSON.stringify({ workflow: `bad${ESC}[2Jname`, [`${ESC}]0;PWNED${BEL}`]: 1, tasks: { t: { command: 'true' } } }),
    );
    const r = await ax(['validate', file], box.opts());
    expect(r.code).toBe(2);
    expectSafe(r.stdout, r.stderr);
    expect(r.stderr).toContain('"bad\\x1b[2Jname" is not a valid name');
    expect(r.stderr).toContain('\\x1b]0;PWNED\\x07');
  });

  it('command-line arguments echoed in errors, by ax and by its argument parser', async () => {
    const [unknown, missing] = await limited([
      () => ax([`${ESC}]0;PWNED${BEL}`], box.opts()),
      () => ax(['export', `nope${ESC}[2J${RLO}`], box.opts()),
    ]);
    expect(unknown.code).toBe(2);
    expectSafe(unknown.stdout, unknown.stderr);
    expect(unknown.stderr).toContain("unknown command '\\x1b]0;PWNED\\x07'");
    expect(missing.code).toBe(3);
    expectSafe(missing.stdout, missing.stderr);
    expect(missing.stderr).toMatch(/^ax: .*nope\\x1b\[2J\\u202e/);
  });
});
