// Dependencies across workflows through the real `ax`: apply warns about a workflow
// that does not exist yet and refuses a cycle across workflows (exit 2, the cycle spelled out);
// ls lists the dangling reference; export writes the references back so that apply is a no-op;
// lineage prints owners and today's states, and --json the graph; run --wait shows the waiting
// task released once its upstream in another workflow succeeded.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LineageGraph } from '../../engine/api/engine-api.ts';
import { ax, axJson, axStart, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-cli-lineage-');
const opts = () => box.opts();

// `latest`: a run of orders made at any time after the warehouse run releases it (no calendar day in the way).
const WAREHOUSE = `workflow: warehouse
owner: bob
tasks:
  load:
    command: echo loaded
    upstream: [{ ref: orders.extract, date: latest }]
    wait_timeout: 2h
  report:
    command: echo reported
    upstream: [load]
`;

describe('ax and dependencies across workflows', () => {
  it('apply warns about a workflow not there yet, ls lists it, export round-trips, a cycle is refused', async () => {
    const first = await ax(['apply', writeFile(box.root, 'warehouse.yaml', WAREHOUSE)], opts());
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('applied warehouse (version 1)\n');
    expect(first.stderr).toContain('warning: ');
    expect(first.stderr).toContain(
      'tasks.load.upstream: no workflow "orders" yet: "load" waits until it is applied and succeeds (up to its wait_timeout)',
    );
    const ls = await ax(['ls'], opts());
    expect(ls.stderr).toContain(
      'ax: workflow warehouse waits for orders.extract, not there (yet): see "ax lineage warehouse"',
    );

    expect((await ax(['export', 'warehouse', '-o', 'exported.yaml'], opts())).code).toBe(0);
    expect(fs.readFileSync(path.join(box.root, 'exported.yaml'), 'utf8')).toContain(
      'upstream: [{ref: orders.extract, date: latest}]',
    );
    expect((await ax(['apply', 'exported.yaml'], opts())).stdout).toBe('warehouse unchanged (version 1)\n');

    const orders = await ax(
      [
        'apply',
        writeFile(
          box.root,
          'orders.yaml',
          'workflow: orders\nowner: alice\ntasks:\n  extract: { command: "echo extracted" }\n',
        ),
      ],
      opts(),
    );
    expect(orders).toMatchObject({ code: 0, stderr: '' });
    expect((await ax(['ls'], opts())).stderr).toBe('');

    const cycle = await ax(
      [
        'apply',
        writeFile(
          box.root,
          'orders2.yaml',
          'workflow: orders\ntasks:\n  extract: { command: "true", upstream: [warehouse.report] }\n',
        ),
      ],
      opts(),
    );
    expect(cycle.code).toBe(2);
    expect(cycle.stderr).toContain(
      'cycle across workflows: orders.extract → warehouse.load → warehouse.report → orders.extract',
    );
  });

  it('run --wait of the downstream shows it waiting, released by the upstream; lineage prints owners and states', async () => {
    // Without a server the command holds the data dir: it says that nothing here can run the upstream.
    const alone = axStart(['run', 'warehouse', '--wait'], opts());
    await alone.waitForLine(
      /^ax: "load" starts once orders\.extract \(its latest run\) succeeds; while this command holds the data dir nothing here can run it/,
      60_000,
      'stderr',
    );
    alone.kill('SIGINT');
    expect((await alone.result(60_000)).code).toBe(130);

    const server = await startServe(opts());
    const waiting = axStart(['run', 'warehouse', '--wait'], opts());
    await waiting.waitForLine(
      /^· load WAITING +\[instance \d+\] — waiting for orders\.extract \(its latest run\)$/,
      60_000,
      'stdout',
    );
    const up = await ax(['run', 'orders', '--wait'], opts());
    expect(up.code).toBe(0);
    const down = await waiting.result(60_000);
    expect(down.code).toBe(0);

    const table = await ax(['lineage', 'warehouse.load'], opts());
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^TASK\s+OWNER\s+TODAY\s+UPSTREAM$/),
      expect.stringMatching(/^ {2}orders\.extract\s+alice\s+✓ SUCCESS\s+–$/),
      expect.stringMatching(/^▸ warehouse\.load\s+bob\s+✓ SUCCESS\s+orders\.extract \(latest\)$/),
      expect.stringMatching(/^ {2}warehouse\.report\s+bob\s+✓ SUCCESS\s+warehouse\.load$/),
    ]);
    const graph = await axJson<LineageGraph>(['lineage', 'orders', '--up', '0'], opts());
    expect(graph.nodes.map((n) => [n.id, n.owner, n.state])).toEqual([
      ['orders.extract', 'alice', 'SUCCESS'],
      ['warehouse.load', 'bob', 'SUCCESS'],
      ['warehouse.report', 'bob', 'SUCCESS'],
    ]);
    const rm = await ax(['rm', 'orders', '--yes'], opts());
    expect(rm).toMatchObject({ code: 0, stdout: 'orders removed\n' });
    expect(rm.stderr).toBe(
      'warning: warehouse.load depends on workflow orders: once it is removed they wait until their wait_timeout; change their upstream\n',
    );
    const unknown = await ax(['lineage', 'nope.x'], opts());
    expect(unknown).toMatchObject({ code: 3 });
    expect(unknown.stderr).toContain('no workflow named "nope.x"');
    server.kill('SIGTERM');
    await server.exited;
  });
});
