// The secrets in the data dir: an empty, short or unreadable-as-text token file never turns the
// check off — `ax serve` replaces the API token and says so, and leaves webhooks off.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { apiUpgrade, type ServeProcess, startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-cli-tokens-');
// each test its own ROOT and data dir under the sandbox: each starts from the token files it writes
let root: string;
let dataDir: string;
let serve: ServeProcess | undefined;
const opts = () => ({ dataDir, cwd: root });
const tokenFile = () => path.join(dataDir, 'api-token');

beforeEach(() => {
  serve = undefined;
  root = fs.mkdtempSync(path.join(box.root, 'test-'));
  dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
});

const upgrade = apiUpgrade;

describe('the API token file', () => {
  it('an empty file is replaced by a fresh token at start, said on stderr; no token opens nothing', async () => {
    fs.writeFileSync(tokenFile(), '', { mode: 0o600 });
    serve = await startServe(opts());
    expect(serve.stderr).toContain(`ax: the API token in ${tokenFile()} was empty; replaced it with a fresh one`);
    const fresh = fs.readFileSync(tokenFile(), 'utf8');
    expect(fresh).toMatch(/^[0-9a-f]{48}$/);
    expect(fs.statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(await upgrade(serve.port, { authorization: 'Bearer ' })).toBe(401);
    expect(await upgrade(serve.port, {}, '?token=')).toBe(401);
    expect(await upgrade(serve.port, {})).toBe(401);
    expect(await upgrade(serve.port, { authorization: `Bearer ${fresh}` })).toBe(101);
    // the CLI reads the fresh token and reaches the running engine
    const listed = await ax(['ls'], opts());
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
  });

  it('a good token that others could read is refused with the chmod; once fixed, it is kept', async () => {
    const token = 'f'.repeat(48);
    fs.writeFileSync(tokenFile(), `${token}\n`, { mode: 0o644 });
    fs.chmodSync(tokenFile(), 0o644);
    const refused = await ax(['serve'], opts());
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      `ax: ${tokenFile()} can be read or written by other users (mode 0644): make it private with chmod 600 ${tokenFile()}`,
    );
    expect(fs.statSync(tokenFile()).mode & 0o777).toBe(0o644);
    fs.chmodSync(tokenFile(), 0o600);
    serve = await startServe(opts());
    expect(await upgrade(serve.port, { authorization: `Bearer ${token}` })).toBe(101);
  });
});

describe('the webhook token file', () => {
  const post = (port: number, token: string) =>
    fetch(`http://127.0.0.1:${port}/events/go`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });

  it('a secret under 16 characters leaves webhooks off and says so; a longer one turns them on while serving', async () => {
    writeFile(root, 'go.yaml', 'workflow: go\non_event: go\ntasks:\n  t:\n    command: "true"\n');
    expect((await ax(['apply', './go.yaml'], opts())).code).toBe(0);
    const webhookFile = path.join(dataDir, 'webhook-token');
    fs.writeFileSync(webhookFile, 'short', { mode: 0o600 });
    serve = await startServe(opts());
    const off = await post(serve.port, 'short');
    expect(off.status).toBe(404);
    expect(((await off.json()) as { error: string }).error).toBe(
      'webhooks are off: put a secret of at least 16 characters in DATA_DIR/webhook-token to turn them on',
    );
    expect(serve.stdout).toContain(
      `webhooks off: put a secret of at least 16 characters in ${webhookFile} to turn them on (read on every request: no restart needed)\n`,
    );
    await serve.waitForLine(/webhooks stay off/, 5000, 'stderr');
    expect(serve.stderr).toContain(
      `ax serve: webhooks stay off: the secret in ${webhookFile} is 5 characters, fewer than 16`,
    );
    fs.writeFileSync(webhookFile, 'a-long-enough-secret-42');
    expect((await post(serve.port, 'short')).status).toBe(401);
    expect((await post(serve.port, 'a-long-enough-secret-42')).status).toBe(202);
  });
});
