// A node's identity files in its data dir (node-secret, node-id: engine/hosts/node/node-identity.ts;
// api-token: data-dir.ts)
// when several nodes start together on one data dir, as a scheduler and its workers do on one
// host. A CI run saw a worker give up its start with "cannot read or create …/node-secret": it
// read the file in the instant between another node creating it and writing it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeKey } from '../../engine/hosts/node/node-identity.ts';
import { tempDir } from '../helpers/files.ts';

const CHILD = path.join(import.meta.dirname, '../helpers/node-identity-child.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const root = tempDir('ax-node-identity-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

interface Outcome {
  key?: string;
  id?: string;
  token?: string;
  error?: string;
}

interface Child {
  outcome: Promise<Outcome>;
  /** ends its stdin (it lets its worker slot go and exits) and waits for its exit */
  end(): Promise<void>;
}

function child(dataDir: string, go: string): Child {
  const p = spawn(process.execPath, ['--import', TSX, CHILD, dataDir, go], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => p.on('close', resolve));
  const outcome = new Promise<Outcome>((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as Outcome);
    });
    p.on('error', reject);
    void exited.then((code) => reject(new Error(`the child exited with ${code} before its answer: ${out}`)));
  });
  return {
    outcome,
    async end() {
      p.stdin.end();
      expect(await exited).toBe(0);
    },
  };
}

describe('node identity files on a shared data dir', () => {
  it('eight nodes starting at one instant on a new data dir all start, with one key, one API token and eight ids', async () => {
    for (let round = 0; round < 4; round++) {
      const dataDir = path.join(root, `together-${round}`);
      const go = path.join(root, `go-${round}`);
      const children = Array.from({ length: 8 }, () => child(dataDir, go));
      // let them all load and wait for the go file
      await new Promise((r) => setTimeout(r, 3_000));
      fs.writeFileSync(go, '');
      const outcomes = await Promise.all(children.map((c) => c.outcome));
      await Promise.all(children.map((c) => c.end()));
      expect(outcomes.filter((o) => o.error)).toEqual([]);
      expect(new Set(outcomes.map((o) => o.key)).size).toBe(1);
      expect(new Set(outcomes.map((o) => o.id)).size).toBe(8);
      // each serves the token the file holds (clients read it there)
      expect(new Set(outcomes.map((o) => o.token))).toEqual(
        new Set([fs.readFileSync(path.join(dataDir, 'api-token'), 'utf8')]),
      );
      // nothing of the nodes' own writes is left beside the files
      expect(fs.readdirSync(dataDir).sort()).toEqual(['api-token', 'node-id', 'node-secret', 'worker-slots']);
      expect(fs.statSync(path.join(dataDir, 'node-secret')).mode & 0o777).toBe(0o600);
    }
  }, 120_000);

  it('a secret file another node has made but not yet written is waited for, not given up on', async () => {
    const dataDir = path.join(root, 'being-written');
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'node-secret');
    fs.writeFileSync(file, '', { mode: 0o600 });
    const secret = 'ab'.repeat(32);
    // another process fills it 300 ms later (this one is blocked in nodeKey meanwhile)
    const writer = spawn(process.execPath, [
      '-e',
      `setTimeout(() => require('fs').writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(secret)}), 300)`,
    ]);
    const key = nodeKey(dataDir);
    await new Promise((r) => writer.on('close', r));
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(nodeKey(dataDir)).toBe(key);
    expect(fs.readFileSync(file, 'utf8')).toBe(secret);
  });

  it('a secret file that stays empty is refused with what to do, and is left as it is', () => {
    const dataDir = path.join(root, 'empty');
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'node-secret');
    fs.writeFileSync(file, '', { mode: 0o600 });
    expect(() => nodeKey(dataDir)).toThrow(/node-secret is not a node secret \(64 hex digits\): remove it/);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });

  it('a secret file planted as a link, or open to others, is refused and not followed', () => {
    const dataDir = path.join(root, 'planted');
    fs.mkdirSync(dataDir, { recursive: true });
    const elsewhere = path.join(root, 'planted-target');
    fs.writeFileSync(elsewhere, 'cd'.repeat(32), { mode: 0o600 });
    fs.symlinkSync(elsewhere, path.join(dataDir, 'node-secret'));
    expect(() => nodeKey(dataDir)).toThrow(/node-secret is a symbolic link: AX does not follow links/);
    fs.rmSync(path.join(dataDir, 'node-secret'));
    fs.writeFileSync(path.join(dataDir, 'node-secret'), 'cd'.repeat(32), { mode: 0o644 });
    expect(() => nodeKey(dataDir)).toThrow(/node-secret can be read or written by other users \(mode 0644\)/);
  });
});
