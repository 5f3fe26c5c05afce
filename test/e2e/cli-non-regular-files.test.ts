// Files the user names that are not regular files: `ax apply` on a FIFO with
// no writer hung forever in open(2). Every command that reads a named file (apply, validate,
// run FILE, trigger --payload-file) refuses a FIFO, a device or a directory at once, saying what
// it is and what to do instead; stdin ("-") is still read from a pipe.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox, limited } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-fifo-');
const WORKFLOW_FIX =
  'not a regular file: AX reads a workflow from a regular file only; save it to one first (e.g. "cat > w.yaml")';

describe('non-regular files', () => {
  it('apply, validate and run FILE refuse a FIFO without a writer at once (exit 2), and a device or a directory', async () => {
    const o = { ...box.opts(), timeoutMs: 20_000 };
    execFileSync('mkfifo', [path.join(box.root, 'w.yaml')]);
    const [apply, validate, run, zero, dir] = await limited([
      () => ax(['apply', 'w.yaml'], o),
      () => ax(['validate', 'w.yaml'], o),
      () => ax(['run', 'w.yaml', '--wait'], o),
      () => ax(['apply', '/dev/zero'], o),
      () => ax(['validate', box.root], o),
    ]);
    for (const r of [apply, validate, run])
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: `ax: w.yaml: is a FIFO (named pipe), ${WORKFLOW_FIX}\n` });
    expect(zero).toMatchObject({ code: 2, stderr: `ax: /dev/zero: is a character device, ${WORKFLOW_FIX}\n` });
    expect(dir).toMatchObject({ code: 2, stderr: `ax: ${box.root}: is a directory, ${WORKFLOW_FIX}\n` });
  });

  it('trigger --payload-file refuses a FIFO and points to "-", which still reads a pipe', async () => {
    const o = { ...box.opts(), timeoutMs: 20_000 };
    execFileSync('mkfifo', [path.join(box.root, 'payload.json')]);
    writeFile(box.root, 'e.yaml', 'workflow: e\non_event: go\ntasks:\n  a:\n    command: echo "$AX_EVENT_PAYLOAD"\n');
    expect((await ax(['apply', 'e.yaml'], o)).code).toBe(0);
    const fifo = await ax(['trigger', 'go', '--payload-file', 'payload.json'], o);
    expect(fifo).toMatchObject({
      code: 2,
      stderr:
        'ax: --payload-file payload.json: is a FIFO (named pipe), not a regular file: to pipe a payload, give --payload-file - and send it on stdin\n',
    });
    const piped = await ax(['trigger', 'go', '--payload-file', '-', '--wait'], { ...o, input: '{"n":1}' });
    expect(piped.code).toBe(0);
    expect((await ax(['logs', '1', 'a'], o)).stdout).toBe('{"n":1}\n');
  });
});
