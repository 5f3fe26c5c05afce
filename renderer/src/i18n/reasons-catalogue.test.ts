// Every engine reason code (engine/api/reasons.ts) has a key in both languages' `reasons`
// namespace, with the same placeholders as the engine's English template, and the same formats:
// a translation can never drop or rename an argument, and no code shows its English by accident.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../../engine/api/reasons.ts';

const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'locales');
const read = (lang: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, lang, 'reasons.json'), 'utf8')) as Record<string, string>;

/** `name, format` of each placeholder, sorted */
const slots = (template: string) =>
  [...template.matchAll(/\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g)].map((m) => `${m[1]}, ${m[2] ?? ''}`).sort();

describe('the reasons namespace matches the engine catalogue', () => {
  for (const lang of ['en', 'zh-CN']) {
    it(`${lang}: one key per code, each with the catalogue's placeholders and formats`, () => {
      const keys = read(lang);
      expect(Object.keys(keys).sort()).toEqual(Object.keys(REASONS).sort());
      for (const [code, template] of Object.entries(REASONS))
        expect(slots(keys[code] ?? ''), code).toEqual(slots(template));
    });
  }

  it('en reads as the engine writes (the CLI and the English UI say the same words)', () => {
    expect(read('en')).toEqual(REASONS);
  });
});
