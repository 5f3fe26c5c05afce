// `simulate:` of a task (ax serve --simulate): read with defaults, refused with a fix, written back
// so that export and apply round-trip; and the simulated runner, which spawns nothing: its lines go
// through the handlers a real process's output goes through, its exit follows fail_rate, and a stop
// ends it as a process that obeys the signal.
import { describe, expect, it } from 'vitest';
import { SimulatedProcessRunner } from '../../engine/adapters/process/simulated-process-runner.ts';
import { checkParams } from '../../engine/api/schemas.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { SIMULATION_DEFAULTS } from '../../engine/core/workflow/task-simulate-fields.ts';
import { oneTask, parse, problems } from '../helpers/workflow-text.ts';

const simulateOf = (line: string) => parse(oneTask(line)).spec.tasks[0]?.simulate;

describe('simulate: in the workflow file', () => {
  it('reads every key, percentages or fractions, and fills what is left out with the defaults', () => {
    expect(simulateOf('simulate: { duration: 2s, jitter: 50%, lines: 20, fail_rate: 0.01 }')).toEqual({
      durationMs: 2_000,
      jitter: 0.5,
      lines: 20,
      failRate: 0.01,
    });
    expect(simulateOf('simulate: { jitter: 0.1, fail_rate: 5% }')).toEqual({
      ...SIMULATION_DEFAULTS,
      jitter: 0.1,
      failRate: 0.05,
    });
    expect(simulateOf('simulate: {}')).toEqual(SIMULATION_DEFAULTS);
    expect(SIMULATION_DEFAULTS).toEqual({ durationMs: 1_000, jitter: 0.5, lines: 5, failRate: 0 });
    expect(parse(oneTask()).spec.tasks[0]?.simulate).toBeUndefined();
  });

  it('names the field and says what to write', () => {
    expect(problems(oneTask('simulate: { duration: soon, jitter: 150%, lines: -1, fail_rate: 2, pace: 1 }'))).toEqual([
      { path: 'tasks.extract.simulate.pace', message: expect.stringMatching(/^unknown key "pace"/) as string },
      { path: 'tasks.extract.simulate.duration', message: expect.stringMatching(/"soon" is not a duration/) as string },
      {
        path: 'tasks.extract.simulate.jitter',
        message:
          'must be a share from 0 to 1 or 0% to 100% (got "150%"), e.g. 50% (or 0.5): the duration varies by up to half either way',
      },
      {
        path: 'tasks.extract.simulate.fail_rate',
        message:
          'must be a share from 0 to 1 or 0% to 100% (got a number), e.g. 1% (or 0.01): one run in a hundred exits 1',
      },
      {
        path: 'tasks.extract.simulate.lines',
        message: 'must be a whole number from 0 to 1000000 (got -1): the log lines each run writes',
      },
    ]);
    expect(problems(oneTask('simulate: 2s'))[0]).toEqual({
      path: 'tasks.extract.simulate',
      message:
        'must be a map such as simulate: { duration: 2s, jitter: 50%, lines: 20, fail_rate: 0.01 } (got a string)',
    });
    expect(problems('workflow: w\ntasks:\n  child:\n    call: other\n    simulate: {}\n').map((p) => p.path)).toContain(
      'tasks.child.simulate',
    );
  });

  it('is written back by export and reads back the same', () => {
    for (const line of [
      'simulate: { duration: 2s, jitter: 50%, lines: 20, fail_rate: 0.01 }',
      'simulate: { duration: 1500ms, jitter: 0.333, lines: 0, fail_rate: 1 }',
      'simulate: {}',
    ]) {
      const spec = parse(oneTask(line)).spec;
      const text = serializeWorkflow(spec);
      expect(text).toMatch(/simulate:/);
      expect(parse(text).spec).toEqual(spec);
      expect(serializeWorkflow(parse(text).spec)).toBe(text);
    }
  });

  it('is checked by the API schema with the same ranges', () => {
    const spec = parse(oneTask('simulate: { duration: 10ms, lines: 1 }')).spec;
    const sim = spec.tasks[0]?.simulate;
    const withSim = (simulate: unknown) => [{ ...spec, tasks: [{ ...spec.tasks[0], simulate }] }, 'me'];
    expect(checkParams('apply', withSim(sim)).ok).toBe(true);
    const bad = checkParams('apply', withSim({ ...sim, failRate: 2 }));
    expect(!bad.ok && bad.problems[0]?.path).toBe('apply(param 1.tasks.0.simulate.failRate)');
    expect(checkParams('apply', withSim({ ...sim, lines: 1.5 })).ok).toBe(false);
  });
});

describe('the simulated runner', () => {
  const env = { AX_WORKFLOW: 'w', AX_TASK: 't', AX_RUN_ID: '7', AX_ATTEMPT: '1' };
  const start = (simulate: Parameters<SimulatedProcessRunner['start']>[0]['simulate'], random = () => 0.5) => {
    const lines: [string, string][] = [];
    const runner = new SimulatedProcessRunner({ random });
    const started = runner.start(
      { command: 'never run', env, ...(simulate && { simulate }) },
      { onLine: (stream, line) => lines.push([stream, line]) },
    );
    return { runner, lines, started };
  };

  it('writes its lines through the handlers and exits 0, spawning nothing', async () => {
    const { runner, lines, started } = start({ durationMs: 30, jitter: 0.5, lines: 45, failRate: 0 });
    const p = await started;
    expect(p.pid).toBe(0);
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(lines).toHaveLength(45);
    expect(lines[0]).toEqual(['stdout', 'simulated line 1 of 45: w.t run #7 attempt 1']);
    expect(lines[44]?.[1]).toBe('simulated line 45 of 45: w.t run #7 attempt 1');
    expect(runner.counts).toEqual({ started: 1, ended: 1 });
    expect(await runner.killLeftover()).toBe(false);
  });

  it('uses the defaults without simulate:, and exits 1 at its fail_rate', async () => {
    const quick = { ...SIMULATION_DEFAULTS, durationMs: 5 };
    expect(await (await start(quick).started).exited).toEqual({ code: 0, signal: null });
    const failing = start({ ...quick, failRate: 0.01 }, () => 0.001);
    expect(await (await failing.started).exited).toEqual({ code: 1, signal: null });
    expect(failing.lines.at(-1)).toEqual(['stderr', 'simulated failure (fail_rate 0.01): exit 1']);
    const defaults = start(undefined);
    const p = await defaults.started;
    await p.terminate(1_000);
    expect(await p.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('ends at a stop as a process that obeys the signal, and writes nothing after', async () => {
    const { lines, started } = start({ durationMs: 60_000, jitter: 0, lines: 20, failRate: 0 });
    const p = await started;
    await p.terminate(0);
    expect(await p.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(lines).toEqual([]);
    await p.terminate(1_000);
    expect(await p.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
