// Applying workflows through the engine (design.md §9): re-applying the same definition changes
// nothing, export returns what was applied, and export → apply is a no-op.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ start: false });
});

afterAll(async () => {
  await t?.close();
});

// Every field the file format has, so that none is lost on the way through the store.
const FULL = `
workflow: nightly-etl
description: Loads yesterday's orders
owner: data-team
schedule:
  cron: "0 30 2 * * *"
  timezone: Europe/Berlin
  misfire: all
  overlap: queue
on_event: orders-ready
routing: least_busy
tasks:
  extract:
    command: ./extract.sh --day "$AX_LOGICAL_TIME"
    cwd: /srv/etl
    env:
      DB_HOST: db.internal
      VERSION: "1.10"
    timeout: 1h30m
    retries: 3
    retry_backoff:
      strategy: exponential
      delay: 30s
      max: 10m
    labels: [etl, big-memory]
    owner: alice
  clean:
    command: ./clean.sh
    retries: 1
    retry_backoff: 45s
    upstream: [extract]
  load:
    command: ./load.sh
    upstream: [clean, extract]
`;

const parse = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;

describe('engine: apply and export', () => {
  it('stores a new workflow as version 1 and exports exactly the applied spec', async () => {
    const spec = parse(FULL);
    expect(await t.engine.apply(spec, 'test')).toEqual({ workflow: 'nightly-etl', version: 1, changed: true });
    const exported = await t.engine.exportWorkflow('nightly-etl');
    expect(exported).toStrictEqual(spec);
    expect(serializeWorkflow(exported)).toBe(serializeWorkflow(spec));
  });

  it('applying the same spec again changes nothing: no new version, no audit entry', async () => {
    const auditBefore = await t.engine.listAudit(100);
    expect(await t.engine.apply(parse(FULL), 'someone-else')).toEqual({
      workflow: 'nightly-etl',
      version: 1,
      changed: false,
    });
    expect(await t.engine.listAudit(100)).toEqual(auditBefore);
    expect((await t.engine.listWorkflows()).find((w) => w.name === 'nightly-etl')?.version).toBe(1);
  });

  it('export then apply is a no-op, through the file text as well', async () => {
    const exported = await t.engine.exportWorkflow('nightly-etl');
    expect((await t.engine.apply(exported, 'test')).changed).toBe(false);
    const text = serializeWorkflow(exported);
    expect((await t.engine.apply(parse(text), 'test')).changed).toBe(false);
  });

  it('treats a file that spells out defaults or orders keys differently as the same definition', async () => {
    const spelledOut = `
workflow: small
routing: round_robin
tasks:
  a:
    retries: 0
    command: echo a
    labels: []
  b:
    upstream: [a]
    command: echo b
    env: {}
    retry_backoff: 10s
`;
    const terse = `
workflow: small
tasks:
  a:
    command: echo a
  b:
    command: echo b
    upstream: [a]
`;
    expect((await t.engine.apply(parse(terse), 'test')).changed).toBe(true);
    expect(await t.engine.apply(parse(spelledOut), 'test')).toEqual({ workflow: 'small', version: 1, changed: false });
  });

  it('a real change makes a new version and export follows it; task ids of kept tasks stay', async () => {
    const before = await t.engine.store.getWorkflowGraph(
      (await t.engine.store.findWorkflowId('nightly-etl')) as number,
    );
    const changed = parse(FULL.replace('./clean.sh', './clean.sh --strict'));
    expect(await t.engine.apply(changed, 'test')).toEqual({ workflow: 'nightly-etl', version: 2, changed: true });
    expect(await t.engine.exportWorkflow('nightly-etl')).toStrictEqual(changed);
    const after = await t.engine.store.getWorkflowGraph(before?.id as number);
    expect(after?.tasks.map((task) => [task.name, task.id])).toEqual(before?.tasks.map((task) => [task.name, task.id]));
    expect((await t.engine.listAudit(1))[0]).toMatchObject({
      action: 'workflow.apply',
      object: 'workflow:nightly-etl',
      detail: 'version 2',
    });
  });

  it('refuses to export a workflow that does not exist, naming it', async () => {
    const err = await t.engine.exportWorkflow('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AxError);
    expect((err as AxError).code).toBe('not_found');
    expect((err as AxError).message).toContain('"nope"');
  });
});
