// Timer and service units for the systemd importer's tests: Debian's (test/fixtures/systemd),
// small ones written by a test, the options of an import, and the checks of its report.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { ImportOptions } from '../../engine/core/import/import-types.ts';
import { importSystemdTimer, type SystemdUnit } from '../../engine/core/import/systemd-import.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { REPO } from './files.ts';

export const FIXTURES = path.join(REPO, 'test/fixtures/systemd');
export const NOW = Date.parse('2026-05-04T10:00:00Z');
export const OPTS: ImportOptions = {
  now: NOW,
  hostZone: 'Europe/Berlin',
  lookupUser: (name) => ({ name, home: `/home/${name}` }),
};

export const fixture = (name: string): SystemdUnit => ({
  timerPath: `/lib/systemd/system/${name}.timer`,
  timerText: fs.readFileSync(path.join(FIXTURES, `${name}.timer`), 'utf8'),
  servicePath: `/lib/systemd/system/${name}.service`,
  serviceText: fs.readFileSync(path.join(FIXTURES, `${name}.service`), 'utf8'),
  readFile: () => undefined,
});

export const unit = (timer: string, service: string, o: Partial<SystemdUnit> = {}): SystemdUnit => ({
  timerPath: '/etc/systemd/system/backup.timer',
  timerText: timer,
  servicePath: '/etc/systemd/system/backup.service',
  serviceText: service,
  readFile: () => undefined,
  ...o,
});
export const SERVICE =
  '[Unit]\nDescription=Back up home\n[Service]\nType=oneshot\nExecStart=/usr/local/bin/backup --all\n';
export const timer = (...lines: string[]) => ['[Unit]', 'Description=Nightly backup', '[Timer]', ...lines].join('\n');

/** the one file an import made, parsed back */
export const one = (r: ReturnType<typeof importSystemdTimer>) => {
  expect(r.skipped).toEqual([]);
  expect(r.files).toHaveLength(1);
  return { job: r.jobs[0], spec: parseWorkflowFile(r.files[0]?.yaml ?? '', { defaultTimezone: 'UTC' }).spec };
};
/** the reasons of an import that made nothing */
export const refused = (r: ReturnType<typeof importSystemdTimer>) => {
  expect(r.jobs).toEqual([]);
  expect(r.files).toEqual([]);
  return r.skipped.map((s) => s.reason);
};
