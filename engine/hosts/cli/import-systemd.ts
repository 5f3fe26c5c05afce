// `ax import systemd UNIT.timer`'s reading: the timer, its service (--service, else the timer's
// Unit=, else NAME.service beside it) and, through readFile, the EnvironmentFile= files.
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { ImportOptions, ImportReport } from '../../core/import/import-types.ts';
import { importSystemdTimer } from '../../core/import/systemd-import.ts';
import { lastOf, parseUnitFile } from '../../core/import/systemd-unit-file.ts';
import { decodeExactly } from '../node/cron-sources.ts';
import { readRegularFile } from './regular-file.ts';

const MAX_UNIT_BYTES = 1024 * 1024;

const readUnit = (file: string): string =>
  decodeExactly(readRegularFile(file, file, MAX_UNIT_BYTES, 'give the unit file itself'), file);

/** The service a timer starts: --service, its Unit=, or the same name beside it. */
export function servicePathOf(timerPath: string, timerText: string, service: string | undefined): string {
  if (service !== undefined) return service;
  const unit = lastOf(parseUnitFile(timerText), 'Timer', 'Unit')?.value;
  const name = unit ?? `${path.basename(timerPath).replace(/\.timer$/, '')}.service`;
  const file = path.join(path.dirname(timerPath), name);
  if (!fs.existsSync(file))
    throw new AxError(
      'not_found',
      `${timerPath}: its service ${name} is not beside it (${file}): give it with --service FILE (e.g. the output of "systemctl cat ${name}")`,
    );
  return file;
}

export function importSystemd(timerPath: string, service: string | undefined, opts: ImportOptions): ImportReport {
  const timerText = readUnit(timerPath);
  const servicePath = servicePathOf(timerPath, timerText, service);
  return importSystemdTimer(
    {
      timerPath,
      timerText,
      servicePath,
      serviceText: readUnit(servicePath),
      readFile: (file) => {
        try {
          return decodeExactly(readRegularFile(file, file, MAX_UNIT_BYTES, 'an EnvironmentFile'), file);
        } catch {
          return undefined;
        }
      },
    },
    opts,
  );
}
