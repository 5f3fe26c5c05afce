// ax serve: the engine as a long-running process, with the API on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { startApiServer } from '../../server/ws-server.ts';
import { apiToken } from '../node/data-dir.ts';
import { embeddedEngine, type GlobalOptions } from './connect.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export function serveCommand(program: Command, globals: Globals): void {
  program
    .command('serve')
    .description('run the scheduler and worker until stopped; other ax commands then go through it')
    .option('--port <port>', 'API port on 127.0.0.1 (default: any free port)', (v) => Number(v), 0)
    .option('--concurrency <n>', 'worker slots (default 8)', (v) => Number(v))
    .option('--drain-timeout <seconds>', 'on SIGTERM/SIGINT, how long running tasks may finish before they are killed', (v) => Number(v), 30)
    .addHelpText('after', '\nExamples:\n  $ ax serve\n  $ AX_DATA_DIR=/srv/ax ax serve --concurrency 16 --drain-timeout 120')
    .action(async (opts: { port: number; concurrency?: number; drainTimeout: number }) => {
      const embedded = await embeddedEngine({ ...globals(), concurrency: opts.concurrency }, 'ax serve');
      const { engine, dir } = embedded;
      const token = apiToken(dir);
      const webhookFile = path.join(dir, 'webhook-token');
      const server = await startApiServer({
        api: engine,
        subscribe: (h) => engine.subscribe(h),
        token,
        webhookToken: fs.existsSync(webhookFile) ? fs.readFileSync(webhookFile, 'utf8').trim() : undefined,
        port: opts.port,
      });
      fs.writeFileSync(path.join(dir, 'engine.lock'), JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(dir, 'engine.lock'), 'utf8')), port: server.port }), { mode: 0o600 });
      console.log(`ax serve: solo engine on ${dir}, API ws://127.0.0.1:${server.port}/api (pid ${process.pid})`);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        console.log(`ax serve: ${signal}: draining (up to ${opts.drainTimeout}s for running tasks)`);
        void (async () => {
          await server.close();
          await embedded.release(opts.drainTimeout * 1000);
          console.log('ax serve: stopped');
          process.exit(0);
        })();
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // Keep the process alive: engine timers are unref'd so that one-shot commands can exit.
      setInterval(() => undefined, 1 << 30);
    });
}
