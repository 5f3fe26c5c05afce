// An imported systemd timer runs under AX as its service ran under systemd: the file the importer
// wrote is applied to a real engine as `ax apply` would (parsed from its text), run, and its log
// shows the command's words, the environment (Environment=, an EnvironmentFile=, systemd's PATH)
// and the working directory the units gave.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importSystemdTimer } from '../../engine/core/import/systemd-import.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let engine: TestEngine | undefined;
let dir: string | undefined;
afterEach(async () => {
  await engine?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('an imported timer, applied and run', () => {
  it('runs the service’s commands with its environment and directory', async () => {
    dir = tempDir('ax-systemd-run-');
    const envFile = path.join(dir, 'backup.env');
    fs.writeFileSync(envFile, '# from the file\nTARGET="/mnt/backup disk"\n');
    const service = [
      '[Unit]',
      'Description=Back up home',
      '[Service]',
      'Type=oneshot',
      `WorkingDirectory=${dir}`,
      'Environment="GREETING=hello  world" TARGET=overridden',
      `EnvironmentFile=${envFile}`,
      'ExecStartPre=/bin/sh -c \'echo "pre in $(pwd)"\'',
      'ExecStart=/usr/bin/printf "[%%s]" ${GREETING} $TARGET',
      'ExecStart=/bin/sh -c \'echo; echo "PATH=$PATH"\'',
    ].join('\n');
    const report = importSystemdTimer(
      {
        timerPath: '/etc/systemd/system/backup.timer',
        timerText: '[Timer]\nOnCalendar=*-*-* 02:00\nPersistent=true\n',
        servicePath: '/etc/systemd/system/backup.service',
        serviceText: service,
        readFile: (p) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined),
      },
      { now: Date.now(), hostZone: 'UTC' },
    );
    expect(report.skipped).toEqual([]);
    const file = report.files[0];
    expect(file?.workflow).toBe('backup');
    engine = await startTestEngine();
    const spec = await engine.apply(file?.yaml ?? '');
    expect(spec.schedule).toEqual({ cron: '0 2 * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' });
    const detail = await engine.runToEnd('backup');
    expect(detail.run.state).toBe('SUCCESS');
    const [instance] = detail.instances;
    expect(await engine.logText(instance?.id ?? 0)).toEqual([
      `pre in ${dir}`,
      '[hello  world][/mnt/backup][disk]',
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin',
    ]);
  });
});
