// `ax settings set` while `ax serve` runs on the data dir: the server read the
// settings file at its start and does not see the change, which said nothing, so alerts set
// this way never came until a restart. Now the command says so on stderr; without a server, no note.
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-cli-settings-note-');
const ALERTS = '{"channels": {}}';
const note = (pid: number, key = 'alerts') =>
  key === 'alerts'
    ? `ax: ax serve (pid ${pid}) runs on this data dir and still has the previous alerts: restart it to apply them, or, when it runs as a service (no terminal), reload them with "kill -HUP ${pid}"\n`
    : `ax: ax serve (pid ${pid}) runs on this data dir and read "${key}" at its start: restart ax serve to apply\n`;

describe('settings changed under a running ax serve', () => {
  it('set and unset say to restart ax serve while one runs; nothing without one', async () => {
    const o = box.opts();
    const alone = await ax(['settings', 'set', 'alerts', '-'], { ...o, input: ALERTS });
    expect({ code: alone.code, stderr: alone.stderr }).toEqual({ code: 0, stderr: '' });

    const serve = await startServe(o, ['--port', '0']);
    const alerts = await ax(['settings', 'set', 'alerts', '-'], { ...o, input: ALERTS });
    expect({ code: alerts.code, stderr: alerts.stderr }).toEqual({ code: 0, stderr: note(serve.pid) });
    const prefix = await ax(['settings', 'set', 'redis-prefix', 'team-a:'], o);
    expect({ code: prefix.code, stderr: prefix.stderr }).toEqual({ code: 0, stderr: note(serve.pid, 'redis-prefix') });
    const unset = await ax(['settings', 'unset', 'alerts'], o);
    expect({ code: unset.code, stderr: unset.stderr }).toEqual({ code: 0, stderr: note(serve.pid) });
    // showing the settings changes nothing: no note
    expect((await ax(['settings'], o)).stderr).toBe('');
  });
});
