// Hands a URL to the desktop's browser (ax open, ax login --browser); says so when there is none
// (a server without a desktop), and the URL printed beside it is the way then.
import { spawn } from 'node:child_process';

export function openInBrowser(url: string, who: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
  child.on('error', () =>
    process.stderr.write(`${who}: no browser could be started here (${cmd} failed): open the link above yourself\n`),
  );
  child.unref();
}
