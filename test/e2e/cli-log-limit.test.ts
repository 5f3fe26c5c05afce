// The total log size cap per task instance (issue 20, item 9): past it the rest of the output is
// dropped, and the log ends with ONE notice saying how much was dropped and how to raise the cap;
// the task runs on to its end. Through the real `ax run` with a small cap from AX_ENGINE_CONFIG.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../engine/api/types.ts';
import { DEFAULT_CONFIG } from '../../engine/core/config.ts';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-log-limit-');

describe('log size cap per instance', () => {
  it('the default is 50 MB', () => {
    expect(DEFAULT_CONFIG.maxOutputBytes).toBe(50 * 1024 * 1024);
  });

  it('a task printing 1 MB past a 100 KB cap: 100 KB stored, one notice with the amount and the fix, the task ran to its end', async () => {
    const o = { ...box.opts(), env: { AX_ENGINE_CONFIG: JSON.stringify({ maxOutputBytes: 100 * 1024 }) } };
    // 10,000 lines of 98 characters (the cap counts a line's bytes without its newline), then one on stderr
    writeFile(box.root, 'flood.yaml', 'workflow: flood\ntasks:\n  a:\n    command: yes "$(printf \'y%.0s\' $(seq 98))" | head -n 10000; echo done >&2\n');
    const run = await ax(['run', 'flood.yaml', '--wait'], o);
    expect(run.code).toBe(0);
    const json = await ax(['--json', 'logs', '1', 'a'], o);
    const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as LogLine);
    const notices = lines.filter((l) => l.stream === 'system');
    expect(notices.map((l) => l.line)).toEqual([
      // 1,044 lines of 98 bytes (102,312) fit; the other 8,956 and the stderr line (877,692 bytes) do not
      `[output truncated: past the log limit of 100 KB, 857.1 KB more (8957 lines) were not stored; the process kept running. Raise the limit with AX_ENGINE_CONFIG='{"maxOutputBytes": 409600}' on the node running the task]`,
    ]);
    expect(lines.at(-1)?.stream).toBe('system');
    const stored = lines.filter((l) => l.stream !== 'system');
    expect(stored).toHaveLength(1044);
    expect(stored.every((l) => l.stream === 'stdout' && l.line === 'y'.repeat(98))).toBe(true);
    // the plain text form shows the same notice
    const text = await ax(['logs', '1', 'a'], o);
    expect(text.stderr.split('\n').filter((l) => l.includes('output truncated'))).toEqual([`[ax] ${notices[0]?.line}`]);
  });
});
