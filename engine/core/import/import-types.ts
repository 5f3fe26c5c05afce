// What an import of jobs from another scheduler (a crontab, a systemd timer) produces: the
// workflows to write, and a report saying for each source line what it became, or why it was not
// imported. The parsers are pure (no file system, no clock): the host passes the text, the time
// and the users, and writes or applies the files.
import type { CronUser } from '../../api/import-report.ts';

// The report's shapes are the API's (the UI shows them): engine/api/import-report.ts.
export type { CronUser, ImportedJob, ImportFile, ImportReport, SkippedLine } from '../../api/import-report.ts';

export interface ImportOptions {
  /** the time the next fires are counted from (epoch ms) */
  now: number;
  /** the zone the jobs ran in under cron when the source names none (the host's zone) */
  hostZone: string;
  /** a user's crontab: whose it is (cron's HOME and LOGNAME come from it) */
  user?: CronUser;
  /** system crontabs and units name their user: how to find one (undefined: no such user) */
  lookupUser?: (name: string) => CronUser | undefined;
  /** the user AX's tasks run as on this machine: a job of another user is not imported (it says why) */
  taskUser?: string;
  /** one workflow of this name with every job as an independent task, instead of one workflow per job */
  group?: string;
  /** AX's defaults (misfire run_once, overlap skip) instead of cron's behaviour (skip, parallel) */
  axDefaults?: boolean;
  /** drop a trailing output redirection (`>> file 2>&1`) so the output reaches AX's log */
  stripRedirects?: boolean;
  /** make each job a monitor and give the source line that wraps it with `ax wrap` (see ImportedJob.wrappedLine) */
  monitor?: boolean;
  /** how many next fires the report compares (default 5) */
  fires?: number;
  /** workflow names chosen by the person (the UI's editable names), by source line */
  names?: Record<number, string>;
}
