// Frame and file limits agree: a workflow file the CLI accepts can be applied
// through `ax serve`. A 1.9 MB file of tab-heavy commands (2 bytes each as JSON) was over the
// server's 4 MiB frame limit, and the CLI said only "the engine closed the connection" (exit 5).
// Now the file limit (5 MB) and the workflow's JSON limit (12 MiB, under the 13 MiB frame limit)
// are checked by the CLI with or without a server, so the server never sees a larger request.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkflowListing } from '../../engine/api/engine-api.ts';
import {
  MAX_SPEC_JSON_BYTES,
  MAX_WORKFLOW_FILE_BYTES,
  parseWorkflowFile,
} from '../../engine/core/workflow/workflow-file.ts';
import { MAX_FRAME_BYTES } from '../../engine/server/ws-server.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-cli-limits-', { keepBetweenTests: true });

/** A workflow file of about `bytes` bytes: tasks whose commands hold `filler` characters inside double quotes. */
function bigFile(name: string, bytes: number, filler: string): string {
  const body = `echo ${filler.repeat(1000)}`;
  const parts = [`workflow: ${name}\ntasks:\n`];
  let size = parts[0]?.length ?? 0;
  for (let i = 0; size < bytes; i++) {
    const task = `  t${i}:\n    command: "${body}"\n`;
    parts.push(task);
    size += Buffer.byteLength(task);
  }
  const file = path.join(box.root, `${name}.yaml`);
  fs.writeFileSync(file, parts.join(''));
  return file;
}

/** The workflow's size as JSON, as the CLI sends it. */
const jsonSize = (file: string) => {
  const { spec } = parseWorkflowFile(fs.readFileSync(file, 'utf8'), { file, defaultTimezone: 'UTC' });
  return Buffer.byteLength(JSON.stringify(spec));
};

describe('a file the CLI accepts can be applied through ax serve', () => {
  it('the limits are consistent: the frame covers the largest workflow as JSON', () => {
    expect(MAX_FRAME_BYTES).toBeGreaterThan(MAX_SPEC_JSON_BYTES);
    // the worst ordinary growth, every byte a tab or a backslash, fits
    expect(MAX_SPEC_JSON_BYTES).toBeGreaterThan(2 * MAX_WORKFLOW_FILE_BYTES);
  });

  it('a 1.9 MB and a 4.9 MB file (2.4 times their size as JSON) apply through the server', async () => {
    fs.mkdirSync(box.dataDir, { recursive: true, mode: 0o700 });
    const serve = await startServe(box.opts(), ['--port', '0']);
    const o = { ...box.opts(), timeoutMs: 120_000 };
    // nine tabs (2 bytes each as JSON) and a control character (6): 2.4 times the file as JSON
    const filler = '\t\t\t\t\t\t\t\t\t\u0001';
    const small = bigFile('tabs-1-9', 1.9e6, filler);
    const large = bigFile('tabs-4-9', 4.9e6, filler);
    expect(jsonSize(small)).toBeGreaterThan(4 * 1024 * 1024); // over the old frame limit
    expect(jsonSize(large)).toBeGreaterThan(0.9 * MAX_SPEC_JSON_BYTES); // near the new one
    for (const [file, name] of [
      [small, 'tabs-1-9'],
      [large, 'tabs-4-9'],
    ] as const) {
      const r = await ax(['apply', file], o);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(r.stdout).toBe(`applied ${name} (version 1)\n`);
    }
    expect((await axJson<WorkflowListing[]>(['ls'], o)).map((w) => w.name).sort()).toEqual(['tabs-1-9', 'tabs-4-9']);
    expect(serve.running).toBe(true);
  });

  it('a file under 5 MB that is over 12 MiB as JSON is refused by the CLI the same way with and without a server', async () => {
    // raw control characters: 1 byte in the file, 6 as JSON ("\u0001")
    const file = bigFile('controls', 2.5e6, '\u0001');
    expect(fs.statSync(file).size).toBeLessThan(MAX_WORKFLOW_FILE_BYTES);
    const message =
      /^ax: .*controls\.yaml: the workflow is 1\d\.\d MB as JSON \(escaped characters and aliases count in full\), over the 12 MB limit: split it into several workflows\n$/;
    const served = await ax(['apply', file], { ...box.opts(), timeoutMs: 120_000 });
    expect(served.code).toBe(2);
    expect(served.stderr).toMatch(message);
    const alone = await ax(['validate', file], {
      dataDir: path.join(box.root, 'no-server'),
      cwd: box.root,
      timeoutMs: 120_000,
    });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(message);
  });
});
