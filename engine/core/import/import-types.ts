// What an import of jobs from another scheduler (a crontab, a systemd timer) produces: the
// workflows to write, and a report saying for each source line what it became, or why it was not
// imported. The parsers are pure (no file system, no clock): the host passes the text, the time
// and the users, and writes or applies the files.
import type { WorkflowSpec } from '../../api/types.ts';

/** A user as cron builds a job's environment from it (HOME, LOGNAME). */
export interface CronUser {
  name: string;
  home: string;
}

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

/** One source line that was imported. */
export interface ImportedJob {
  /** 1-based line number in the source */
  line: number;
  /** the line as in the source */
  text: string;
  /** a system crontab's user column, a unit's User= */
  user?: string;
  workflow: string;
  task: string;
  /** the schedule in words, or "when the engine starts" */
  scheduleText: string;
  cron?: string;
  timezone?: string;
  /** the next fires under the source's own rules and under AX's schedule: equal, or the line is not imported */
  sourceFires: number[];
  axFires: number[];
  /** kept behaviour worth knowing: a redirect whose output will not reach AX's log, … */
  warnings: string[];
  /** with `monitor`: the line to put in the source in place of this one */
  wrappedLine?: string;
}

/** One source line that was not imported, and why (never something close instead). */
export interface SkippedLine {
  line: number;
  text: string;
  reason: string;
}

/** One workflow file to write or apply. */
export interface ImportFile {
  workflow: string;
  /** e.g. `backup-home.yaml` */
  fileName: string;
  /** the file's text, as `ax apply` takes it unchanged */
  yaml: string;
  spec: WorkflowSpec;
  /** the source lines it came from */
  lines: number[];
}

export interface ImportReport {
  /** what was read: "crontab of alice", "/etc/cron.d/backup", "backup.timer" */
  source: string;
  jobs: ImportedJob[];
  skipped: SkippedLine[];
  /** about the import as a whole: cron's behaviour kept and the AX defaults offered, channels to define for MAILTO, … */
  notes: string[];
  files: ImportFile[];
}
