// What an import of jobs from another scheduler (a crontab, a systemd timer) reports: for each
// source line what it became, or why it was not imported, and the workflow files to write. The
// pure importers in engine/core/import/ produce it; the CLI prints it and the UI shows it (so it
// lives here, in the contract both see).
import type { WorkflowSpec } from './types.ts';

/** A user as cron builds a job's environment from it (HOME, LOGNAME). */
export interface CronUser {
  name: string;
  home: string;
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

/** The largest crontab text the engine converts (previewCrontabImport, importCrontab): 1 MiB. */
export const MAX_CRONTAB_BYTES = 1024 * 1024;

/**
 * A crontab pasted into the UI, to be converted by the engine with its own clock, zone and task
 * user (previewCrontabImport). The options are ImportOptions' of the same names.
 */
export interface CrontabImportRequest {
  text: string;
  /** one workflow of this name with every chosen job as a task */
  group?: string;
  /** AX's defaults (misfire run_once, overlap skip) instead of cron's behaviour */
  axDefaults?: boolean;
  /** drop trailing output redirections so the output reaches AX's log */
  stripRedirects?: boolean;
  /** workflow names chosen by the person, by 1-based source line */
  names?: Record<number, string>;
}

/** What importCrontab applies: the request's text converted again, and only these lines of it. */
export interface CrontabImportChoice extends CrontabImportRequest {
  /** the 1-based source lines to import (each an imported job of the preview) */
  lines: number[];
}
