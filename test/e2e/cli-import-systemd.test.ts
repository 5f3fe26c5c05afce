// `ax import systemd UNIT.timer` through the real `ax`: the service found beside the timer (or by
// Unit=, or --service), its EnvironmentFile read, the report, --apply and a run with the
// service's command and environment; a timer without its service says how to give it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../engine/core/import/import-types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-import-systemd-');
// Each test starts several `ax` processes one after the other (about a second each on an idle
// machine, many more on a busy one): the default 60 s is not the point here.
const LONG = 240_000;
const opts = () => box.opts();

const put = (dir: string, name: string, text: string): string => {
  fs.mkdirSync(dir, { recursive: true });
  return writeFile(dir, name, text);
};

describe('ax import systemd', () => {
  it(
    'a timer and the service beside it, with its EnvironmentFile: imported, applied, run',
    async () => {
      const units = path.join(box.root, 'units');
      const out = path.join(box.root, 'report.txt');
      put(box.root, 'report.env', 'GREETING=hello from the env file\n');
      put(
        units,
        'report.timer',
        '[Unit]\nDescription=Daily report\n\n[Timer]\nOnCalendar=*-*-* 06:30:00\n\n[Install]\nWantedBy=timers.target\n',
      );
      put(
        units,
        'report.service',
        `[Unit]\nDescription=Daily report\n\n[Service]\nType=oneshot\nEnvironmentFile=${path.join(box.root, 'report.env')}\nExecStart=/bin/sh -c 'echo "$GREETING" > ${out}'\n`,
      );
      const report = await axJson<ImportReport>(['import', 'systemd', path.join('units', 'report.timer')], opts());
      expect(report.skipped).toEqual([]);
      expect(report.jobs).toHaveLength(1);
      const [job] = report.jobs;
      expect(job?.sourceFires).toHaveLength(5);
      expect(job?.sourceFires).toEqual(job?.axFires);
      const text = await ax(['import', 'systemd', path.join('units', 'report.timer')], opts());
      expect(text.stdout).toContain('under systemd');
      expect(text.stdout).toContain(`→ workflow ${job?.workflow}`);
      expect(text.stdout).toContain('dry run: nothing was written or applied');

      const applied = await ax(['import', 'systemd', path.join('units', 'report.timer'), '--apply'], opts());
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(`applied ${job?.workflow} (version 1)`);
      const run = await ax(['run', job?.workflow as string, '--wait'], opts());
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(fs.readFileSync(out, 'utf8')).toBe('hello from the env file\n');
    },
    LONG,
  );

  it(
    'a timer whose service is not beside it: the error says to give --service; with it, imported',
    async () => {
      const dir = path.join(box.root, 'lonely');
      put(dir, 'lonely.timer', '[Timer]\nOnCalendar=daily\nUnit=elsewhere.service\n');
      const r = await ax(['import', 'systemd', path.join('lonely', 'lonely.timer')], opts());
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('its service elsewhere.service is not beside it');
      expect(r.stderr).toContain('--service FILE');
      const service = put(box.root, 'elsewhere.service', '[Service]\nExecStart=/bin/true\n');
      const withService = await axJson<ImportReport>(
        ['import', 'systemd', path.join('lonely', 'lonely.timer'), '--service', service],
        opts(),
      );
      expect(withService.jobs.map((j) => j.scheduleText)).toHaveLength(1);
    },
    LONG,
  );
});
