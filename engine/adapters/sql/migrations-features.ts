// The migrations of the features after the engine's core schema (migrations.ts): engine-wide
// switches (0009), event keys (0010), alerts (0011), dependencies across workflows (0012), the
// audit's note (0013), a task's log limit (0014).
import type { Kysely, Migration } from 'kysely';
import { autoId, type SqlDialectName, tableEnd, types } from './migration-sql.ts';

/**
 * Switches of the whole engine, shared by every node of a team (pause all scheduling).
 * A flag is on while its row exists, so setting it twice keeps who set it first and when.
 */
export function engineFlags(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('engine_flag')
        .addColumn('name', t.name, (c) => c.primaryKey())
        .addColumn('set_at', t.big, (c) => c.notNull())
        .addColumn('set_by', t.name, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
    },
  };
}

export function eventKeys(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('event_key')
        .addColumn('event', t.name, (c) => c.notNull())
        .addColumn('idem_key', t.name, (c) => c.notNull())
        .addColumn('claimed_at', t.big, (c) => c.notNull())
        .addColumn('run_ids', 'text')
        .addPrimaryKeyConstraint('event_key_pk', ['event', 'idem_key'])
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('event_key_claimed').on('event_key').column('claimed_at').execute();
    },
  };
}

/**
 * Alerts and their deliveries. `alert_key` is unique: the node whose insert wins
 * sends the alert, so a team sends each once. `(group_key, opens_group)` is unique too, and
 * only a group's first alert has `opens_group` 1 (the others NULL, which a unique index lets
 * repeat): the insert that opens a group sends at once, later ones are counted for its summary.
 */
export function alerts(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('alert')
        .addColumn('id', 'integer', autoId(dialect))
        .addColumn('alert_key', t.name, (c) => c.notNull().unique())
        .addColumn('group_key', t.name, (c) => c.notNull())
        .addColumn('opens_group', 'integer')
        .addColumn('group_ends_at', t.big, (c) => c.notNull())
        .addColumn('group_done', 'integer', (c) => c.notNull())
        .addColumn('rule', t.name, (c) => c.notNull())
        .addColumn('subject', t.name, (c) => c.notNull())
        .addColumn('workflow', t.name)
        .addColumn('run_id', 'integer')
        .addColumn('instance_id', 'integer')
        .addColumn('severity', t.name, (c) => c.notNull())
        .addColumn('title', t.longText, (c) => c.notNull())
        .addColumn('message', t.longText, (c) => c.notNull())
        .addColumn('at', t.big, (c) => c.notNull())
        .addColumn('node', t.name, (c) => c.notNull())
        .addColumn('kind', t.name, (c) => c.notNull())
        .addColumn('repeats', 'integer')
        .addColumn('state', t.name, (c) => c.notNull())
        .addUniqueConstraint('alert_group_opener', ['group_key', 'opens_group'])
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('alert_group_due').on('alert').columns(['group_done', 'group_ends_at']).execute();
      await db.schema.createIndex('alert_at').on('alert').column('at').execute();
      await db.schema
        .createTable('alert_delivery')
        .addColumn('alert_id', 'integer', (c) => c.notNull())
        .addColumn('channel', t.name, (c) => c.notNull())
        .addColumn('kind', t.name)
        .addColumn('state', t.name, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('error', t.longText)
        .addColumn('at', t.big, (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_delivery_pk', ['alert_id', 'channel'])
        .modifyEnd(end)
        .execute();
    },
  };
}

/**
 * Dependencies across workflows: `cross_dependency`, what each task names in other
 * workflows (by name: the upstream may not exist yet), found by its upstream for lineage and
 * apply's checks; `upstream_wait`, one row per upstream a held instance still waits for, found
 * by the upstream's finish (workflow, task, logical time) and by the deadline sweep; runs of a
 * workflow by logical time, for the match.
 */
export function crossWorkflowDependencies(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cross_dependency')
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('upstream_workflow', t.name, (c) => c.notNull())
        // '' for the whole workflow: a key column cannot be NULL in a unique index on both dialects alike
        .addColumn('upstream_task', t.name, (c) => c.notNull())
        .addColumn('date_rule', t.name, (c) => c.notNull())
        .addColumn('wait_timeout_ms', t.big, (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createIndex('cross_dependency_workflow')
        .on('cross_dependency')
        .columns(['workflow_id', 'task_id'])
        .execute();
      await db.schema
        .createIndex('cross_dependency_upstream')
        .on('cross_dependency')
        .columns(['upstream_workflow', 'upstream_task'])
        .execute();
      await db.schema
        .createTable('upstream_wait')
        .addColumn('id', 'integer', autoId(dialect))
        .addColumn('instance_id', 'integer', (c) => c.notNull())
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('upstream_workflow', t.name, (c) => c.notNull())
        .addColumn('upstream_task', t.name, (c) => c.notNull())
        .addColumn('window_from', t.big, (c) => c.notNull())
        .addColumn('window_to', t.big, (c) => c.notNull())
        .addColumn('label', t.name, (c) => c.notNull())
        .addColumn('deadline', t.big, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createIndex('upstream_wait_upstream')
        .on('upstream_wait')
        .columns(['upstream_workflow', 'upstream_task', 'window_from'])
        .execute();
      await db.schema.createIndex('upstream_wait_instance').on('upstream_wait').column('instance_id').execute();
      await db.schema.createIndex('upstream_wait_run').on('upstream_wait').column('run_id').execute();
      await db.schema.createIndex('upstream_wait_deadline').on('upstream_wait').column('deadline').execute();
      await db.schema
        .createIndex('workflow_run_logical')
        .on('workflow_run')
        .columns(['workflow_id', 'logical_time'])
        .execute();
    },
  };
}

/**
 * The audit's actor column is the identity the server authenticated, alone; what the client said
 * about itself ("webhook from 10.0.0.7") goes beside it. Rows from before have no note (older
 * ones may still hold "— note: …" inside the actor, as written then).
 */
export function auditNote(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('audit_log').addColumn('note', types(dialect).longText).execute();
    },
  };
}

/** A task's own log_limit: the most output one of its attempts stores (none: the node's). */
export function taskLogLimit(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_definition').addColumn('log_limit_bytes', types(dialect).big).execute();
    },
  };
}

/**
 * A run's params (issue 23): the values it was started with, checked and with defaults filled in,
 * as a JSON object (NULL for none); and whether a run of one task (only_task) takes that task's
 * downstream with it (1) or is that task alone (0, as every run before). The workflow's declared
 * params beside its spec, so a run's start reads them with the graph, not by parsing spec_json.
 */
export function runParams(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('workflow_run').addColumn('params_json', types(dialect).longText).execute();
      await db.schema
        .alterTable('workflow_run')
        .addColumn('with_downstream', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('workflow').addColumn('params_json', types(dialect).longText).execute();
    },
  };
}

/** A monitor's schedule (design.md §13): how long after a fire its run may come; NULL for a schedule that fires. */
export function monitorGrace(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('schedule_plan').addColumn('monitor_grace_ms', types(dialect).big).execute();
    },
  };
}

/** A task's trigger rule (`run_if:`, NULL: all_success) and precondition (`when:`, as JSON). */
export function taskConditions(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_definition').addColumn('run_if', types(dialect).name).execute();
      await db.schema.alterTable('task_definition').addColumn('when_json', types(dialect).longText).execute();
    },
  };
}

/**
 * Sub-workflows (`call:` tasks): the task's call (workflow and params, JSON; NULL for a command
 * task), a child run's parent run and calling instance, and the calling instance's child run.
 * Children of a run are found by parent_run_id.
 */
export function subworkflows(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_definition').addColumn('call_json', t.longText).execute();
      await db.schema.alterTable('workflow_run').addColumn('parent_run_id', 'integer').execute();
      await db.schema.alterTable('workflow_run').addColumn('parent_instance_id', 'integer').execute();
      await db.schema.alterTable('task_instance').addColumn('child_run_id', 'integer').execute();
      await db.schema.createIndex('workflow_run_parent').on('workflow_run').column('parent_run_id').execute();
    },
  };
}

/**
 * Backfills (`ax backfill`): the window, its logical times (a JSON list, oldest first) and how it
 * goes. `workflow_run.backfill_id` names a backfill's runs; unique with the logical time, so a
 * logical time of a backfill gets one run whoever creates it (two schedulers, a restart after a
 * crash). Other runs have NULL there, which a unique index lets repeat.
 */
export function backfills(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('backfill')
        .addColumn('id', 'integer', autoId(dialect))
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('workflow_name', t.name, (c) => c.notNull())
        .addColumn('from_time', t.big, (c) => c.notNull())
        .addColumn('to_time', t.big, (c) => c.notNull())
        .addColumn('every', t.name)
        .addColumn('times_json', t.longText, (c) => c.notNull())
        .addColumn('total', 'integer', (c) => c.notNull())
        .addColumn('params_json', t.longText)
        .addColumn('max_parallel', 'integer', (c) => c.notNull())
        .addColumn('rerun_existing', 'integer', (c) => c.notNull())
        .addColumn('state', t.name, (c) => c.notNull())
        .addColumn('created_by', t.name, (c) => c.notNull())
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('finished_at', t.big)
        // set by a re-run of its failed runs: a FAILED run that ended before it is due again
        .addColumn('rerun_at', t.big)
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('backfill_state').on('backfill').column('state').execute();
      await db.schema.createIndex('backfill_workflow').on('backfill').columns(['workflow_name', 'id']).execute();
      await db.schema.alterTable('workflow_run').addColumn('backfill_id', 'integer').execute();
      await db.schema
        .createIndex('workflow_run_backfill')
        .on('workflow_run')
        .columns(['backfill_id', 'logical_time'])
        .unique()
        .execute();
    },
  };
}

/** What an attempt ran (issue 24): command, cwd and the environment AX set, secrets masked, as JSON. */
export function instanceLaunch(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_instance').addColumn('launch_json', types(dialect).longText).execute();
    },
  };
}

/** A task instance's outputs (issue 23): what it wrote to $AX_OUTPUT, as a JSON object of strings. */
export function instanceOutputs(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_instance').addColumn('outputs_json', types(dialect).longText).execute();
    },
  };
}

/**
 * Reason codes (issue 24): the reason of an instance and of a run as a code and its arguments
 * (JSON `{code,args}`), for the UI to translate; NULL for rows written before, or a reason
 * with no code (the English `reason` still stands). An alert's title and message lines, the same.
 */
export function reasonCodes(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('task_instance').addColumn('reason_code', t.longText).execute();
      await db.schema.alterTable('workflow_run').addColumn('reason_code', t.longText).execute();
      await db.schema.alterTable('alert').addColumn('text_code', t.longText).execute();
    },
  };
}
