// `on: engine_start` in the workflow file: read into spec.onEngineStart, refused with the fix for
// any other value, written back by serializeWorkflow so export → apply changes nothing.
import { describe, expect, it } from 'vitest';
import { checkParams } from '../../engine/api/schemas.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { parse, problems } from '../helpers/workflow-text.ts';

const file = (...top: string[]) => ['workflow: w', ...top, 'tasks:', '  a:', '    command: ./a.sh'].join('\n');

describe('on: engine_start', () => {
  it('marks the workflow to run when the engine starts, with no schedule', () => {
    const { spec } = parse(file('on: engine_start'));
    expect(spec.onEngineStart).toBe(true);
    expect(spec.schedule).toBeUndefined();
  });

  it('goes with a schedule and an event', () => {
    const { spec } = parse(file('schedule: "0 2 * * *"', 'on_event: deploy', 'on: engine_start'));
    expect(spec.onEngineStart).toBe(true);
    expect(spec.schedule?.cron).toBe('0 2 * * *');
    expect(spec.onEvent).toBe('deploy');
  });

  it('is absent from a workflow without it', () => {
    expect(parse(file()).spec.onEngineStart).toBeUndefined();
  });

  it.each([
    ['on: reboot', '"reboot"'],
    ['on: true', 'a boolean'],
    ['on: [engine_start]', 'a list'],
    ['on:', 'nothing'],
  ])('refuses %s, naming the value it takes', (line, got) => {
    const p = problems(file(line));
    expect(p).toHaveLength(1);
    expect(p[0]?.path).toBe('on');
    expect(p[0]?.message).toContain('must be engine_start');
    expect(p[0]?.message).toContain(got);
    expect(p[0]?.message).toContain('on_event: NAME');
  });

  it('suggests "on" for a near miss of the key', () => {
    const p = problems(file('onn: engine_start'));
    expect(p[0]?.message).toMatch(/did you mean '(on|on_event)'\?/);
  });

  it('round-trips: serialize → parse gives the same spec and the same text', () => {
    const { spec } = parse(file('schedule: "*/5 * * * *"', 'on: engine_start'));
    const text = serializeWorkflow(spec);
    expect(text).toContain('on: engine_start\n');
    const again = parse(text).spec;
    expect(again).toEqual(spec);
    expect(serializeWorkflow(again)).toBe(text);
  });

  it('writes nothing for a workflow without it', () => {
    expect(serializeWorkflow(parse(file()).spec)).not.toMatch(/^on:/m);
  });

  it('is accepted by the API schema as a boolean, and refused as anything else', () => {
    const spec = { name: 'w', onEngineStart: true, tasks: [{ name: 'a', command: './a.sh' }] };
    const ok = checkParams('apply', [spec, 'me']);
    expect(ok.ok && (ok.params[0] as { onEngineStart?: boolean }).onEngineStart).toBe(true);
    const bad = checkParams('apply', [{ ...spec, onEngineStart: 'yes' }, 'me']);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems[0]?.path).toBe('apply(param 1.onEngineStart)');
  });
});
