import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { tempDir } from '../helpers/files.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir('ax-api-token-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = () => path.join(dir, 'api-token');

describe('apiToken', () => {
  it('creates a 48-character token, mode 0600, once', () => {
    const notices: string[] = [];
    const token = apiToken(dir, (m) => notices.push(m));
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
    expect(apiToken(dir, (m) => notices.push(m))).toBe(token);
    expect(notices).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['api-token']);
  });

  for (const [what, text, said] of [
    ['empty', '', 'empty'],
    ['whitespace only', '  \n\t', 'empty'],
    ['short', 'abc123', '6 characters, fewer than 32'],
    ['31 characters', 'x'.repeat(31), '31 characters, fewer than 32'],
    ['not printable ASCII', `${'x'.repeat(40)}\u00e9`, 'not printable ASCII'],
    ['with a space inside', `${'x'.repeat(20)} ${'y'.repeat(20)}`, 'not printable ASCII'],
  ] as const) {
    it(`${what}: replaced by a fresh token, and said`, () => {
      fs.writeFileSync(file(), text, { mode: 0o600 });
      const notices: string[] = [];
      const token = apiToken(dir, (m) => notices.push(m));
      expect(token).toMatch(/^[0-9a-f]{48}$/);
      expect(fs.readFileSync(file(), 'utf8')).toBe(token);
      expect(notices).toEqual([
        `ax: the API token in ${file()} was ${said}; replaced it with a fresh one (clients read it from that file)`,
      ]);
    });
  }

  it('keeps a good token (trimmed), 32 characters being enough', () => {
    fs.writeFileSync(file(), `${'k'.repeat(32)}\n`, { mode: 0o600 });
    const notices: string[] = [];
    expect(apiToken(dir, (m) => notices.push(m))).toBe('k'.repeat(32));
    expect(notices).toEqual([]);
  });
});
