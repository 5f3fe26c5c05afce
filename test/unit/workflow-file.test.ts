import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../engine/api/errors.ts';
import {
  decodeWorkflowFile,
  hasComments,
  MAX_WORKFLOW_FILE_BYTES,
  parseWorkflowFile,
} from '../../engine/core/workflow/workflow-file.ts';
import { oneTask, opts, parse, problems, task } from '../helpers/workflow-text.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';

describe('parseWorkflowFile: valid files', () => {
  it('fills in defaults', () => {
    const { spec, warnings } = parse(
      'workflow: nightly-etl\nschedule: "0 2 * * *"\ntasks:\n  extract:\n    command: ./extract.sh\n',
    );
    expect(warnings).toEqual([]);
    expect(spec).toStrictEqual({
      name: 'nightly-etl',
      routing: 'round_robin',
      schedule: { cron: '0 2 * * *', timezone: 'Europe/Berlin', misfire: 'run_once', overlap: 'skip' },
      tasks: [task('extract')],
    });
  });

  it('reads every field', () => {
    const { spec } = parse(`
workflow: etl.v2
description: nightly load
owner: ana
schedule: { cron: "0 2 * * *", timezone: UTC, misfire: all, overlap: queue }
on_event: orders-ready
routing: least_busy
tasks:
  extract:
    command: ./extract.sh
    cwd: /data
    env: { A: x, N: 1.10, B: true, HEX: 0x1F }
    timeout: 1h30m
    retries: 3
    retry_backoff: { strategy: exponential, delay: 5s }
    labels: [gpu, linux]
    owner: bo
  load:
    command: ./load.sh
    retry_backoff: 30s
    upstream: [extract]
`);
    expect(spec.description).toBe('nightly load');
    expect(spec.owner).toBe('ana');
    expect(spec.schedule).toEqual({ cron: '0 2 * * *', timezone: 'UTC', misfire: 'all', overlap: 'queue' });
    expect(spec.onEvent).toBe('orders-ready');
    expect(spec.routing).toBe('least_busy');
    // numbers keep the text as written: a version "1.10" must not become "1.1"
    expect(spec.tasks[0]).toStrictEqual({
      name: 'extract',
      command: './extract.sh',
      cwd: '/data',
      env: { A: 'x', N: '1.10', B: 'true', HEX: '0x1F' },
      timeoutMs: 5_400_000,
      retries: 3,
      retryBackoff: { kind: 'exponential', delayMs: 5000, maxDelayMs: 3_600_000 },
      labels: ['gpu', 'linux'],
      upstream: [],
      owner: 'bo',
    });
    expect(spec.tasks[1]?.retryBackoff).toEqual({ kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 });
    expect(spec.tasks[1]?.upstream).toEqual(['extract']);
  });

  it('lists tasks in topological order, ties by name, and keeps names that look like numbers as written', () => {
    const { spec } = parse(
      'workflow: w\ntasks:\n  b: {command: x}\n  2: {command: x}\n  1.50: {command: x}\n  a: {command: x}\n',
    );
    expect(spec.tasks.map((t) => t.name)).toEqual(['1.50', '2', 'a', 'b']);
    const chain = parse(
      'workflow: w\ntasks:\n  load: {command: x, upstream: [clean]}\n  clean: {command: x, upstream: [extract]}\n  extract: {command: x}\n  audit: {command: x}\n',
    );
    expect(chain.spec.tasks.map((t) => t.name)).toEqual(['audit', 'extract', 'clean', 'load']);
  });

  it('resolves anchors and aliases', () => {
    const { spec } = parse(
      'workflow: w\ntasks:\n  a: { command: x, env: &common { REGION: eu } }\n  b: { command: y, env: *common }\n',
    );
    expect(spec.tasks.map((t) => t.env)).toEqual([{ REGION: 'eu' }, { REGION: 'eu' }]);
  });

  it('accepts JSON', () => {
    const json = JSON.stringify(
      {
        workflow: 'w',
        schedule: { cron: '*/5 * * * *', overlap: 'parallel' },
        tasks: { a: { command: 'echo a', retries: 1 }, b: { command: 'echo b', upstream: ['a'] } },
      },
      null,
      '\t',
    );
    const { spec, warnings } = parse(json);
    expect(warnings).toEqual([]);
    expect(spec.schedule).toEqual({
      cron: '*/5 * * * *',
      timezone: 'Europe/Berlin',
      misfire: 'run_once',
      overlap: 'parallel',
    });
    expect(spec.tasks.map((t) => [t.name, t.retries, t.upstream])).toEqual([
      ['a', 1, []],
      ['b', 0, ['a']],
    ]);
  });

  it('takes comments without a warning (they matter only where ax export would write over them), and tells comments from "#" inside strings', () => {
    expect(parse(`# nightly\n${oneTask()}`).warnings).toEqual([]);
    expect(parse(`${oneTask()}  # trailing`).warnings).toEqual([]);
    expect(hasComments(`# nightly\n${oneTask()}`)).toBe(true);
    expect(hasComments(`${oneTask()}  # trailing`)).toBe(true);
    expect(hasComments(oneTask('env: { A: "#x", B: a#b }'))).toBe(false);
    expect(hasComments('workflow: w\ntasks:\n  t:\n    command: |\n      # a shell comment\n      ls\n')).toBe(false);
  });
});

describe('hostile and careless input', () => {
  const NUL = 'contains a NUL character (\\0), which no command, path or variable can hold: remove it';

  it('a NUL anywhere is an error naming the field, whether escaped or raw', () => {
    expect(problems(oneTask('env: { X: "a\\0b" }', 'cwd: "/tmp/\\0"'))).toEqual([
      { path: 'tasks.extract.env.X', message: NUL },
      { path: 'tasks.extract.cwd', message: NUL },
    ]);
    expect(problems('workflow: w\ntasks:\n  a:\n    command: "echo a\0b"\n')).toEqual([
      { path: 'tasks.a.command', message: NUL },
    ]);
    expect(problems('workflow: w\ntasks:\n  a:\n    command: echo\n    env: { "A\\0B": x }\n')).toEqual([
      { path: 'tasks.a.env.A\\0B', message: `key ${NUL}` },
    ]);
  });

  it('a spec from the API with a NUL is refused as a file with one would be', () => {
    const text = serializeWorkflow({ name: 'w', routing: 'round_robin', tasks: [task('a', { command: 'echo \0' })] });
    expect(problems(text)).toEqual([{ path: 'tasks.a.command', message: NUL }]);
  });

  it('a relative cwd is resolved by the host when it can, and refused when there is no file to resolve it against', () => {
    expect(problems(oneTask('cwd: data'))).toEqual([
      {
        path: 'tasks.extract.cwd',
        message:
          '"data" is a relative path: write the full path, e.g. "/srv/etl" ("ax apply FILE" resolves it against the file\'s directory)',
      },
    ]);
    const seen: string[] = [];
    const resolveCwd = (cwd: string) => {
      seen.push(cwd);
      return `/base/${cwd}`;
    };
    const { spec } = parseWorkflowFile(`${oneTask('cwd: ../data')}\n  b:\n    command: x\n    cwd: /abs`, {
      ...opts,
      resolveCwd,
    });
    expect(spec.tasks.map((t) => t.cwd)).toEqual(['/abs', '/base/../data']);
    expect(seen).toEqual(['../data']);
    expect(parse(oneTask('cwd: "C:\\\\jobs"')).spec.tasks[0]?.cwd).toBe('C:\\jobs');
  });

  it('text over the size limit is refused before the parser sees it', () => {
    // A document the parser would reject at its first line: only the size is reported.
    const text = `{{{ ${'x'.repeat(MAX_WORKFLOW_FILE_BYTES)}`;
    // only the size is reported, none of the parser's errors: it never ran (its time: bench/guard-times.ts)
    expect(problems(text, 'big.yaml')).toEqual([
      {
        file: 'big.yaml',
        path: '',
        message: 'the file is 5.0 MB, over the 5 MB limit for a workflow file: split it into several workflows',
      },
    ]);
  });

  it('bytes that are not UTF-8 are refused with the offset, line and column of the first bad one', () => {
    const latin1 = Buffer.from('workflow: w\ntasks:\n  a:\n    command: echo café\n', 'latin1');
    const problem = (bytes: Uint8Array) => {
      try {
        decodeWorkflowFile(bytes, 'f.yaml');
      } catch (e) {
        return (e as ValidationError).problems;
      }
      throw new Error('expected a ValidationError');
    };
    const hint = 'is not valid UTF-8: save the file as UTF-8 (it may be Latin-1 or UTF-16)';
    expect(problem(latin1)).toEqual([
      { file: 'f.yaml', path: '', message: `not UTF-8: byte 0xE9 at offset 45 (line 4, column 22) ${hint}` },
    ]);
    // UTF-16 with its byte-order mark fails at the very first byte
    expect(problem(Buffer.from('\uFEFFworkflow: w', 'utf16le'))[0]?.message).toBe(
      `not UTF-8: byte 0xFF at offset 0 (line 1, column 1) ${hint}`,
    );
    // the column counts characters: "é" before the bad byte is one column
    expect(problem(Buffer.concat([Buffer.from('# é'), Buffer.from([0xc3, 0x28])]))[0]?.message).toBe(
      `not UTF-8: byte 0xC3 at offset 4 (line 1, column 4) ${hint}`,
    );
    expect(decodeWorkflowFile(Buffer.from('\uFEFFworkflow: café'), 'f.yaml')).toBe('workflow: café');
    expect(() => decodeWorkflowFile(new Uint8Array(MAX_WORKFLOW_FILE_BYTES + 1), 'f.yaml')).toThrow(
      'over the 5 MB limit',
    );
  });
});
