// Both languages have the same keys in every namespace (plural forms aside: Chinese has only
// `_other`), and no value is empty, so a screen never falls back to a raw key.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectResources, detectLanguage } from './index.ts';

const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'locales');

function flatten(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}

/** a key with its plural suffix removed: both languages must have the base key in some form */
const base = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, '');

function load(lang: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const file of fs.readdirSync(path.join(dir, lang))) {
    if (file.endsWith('.json'))
      out[file.replace(/\.json$/, '')] = JSON.parse(fs.readFileSync(path.join(dir, lang, file), 'utf8'));
  }
  return out;
}

describe('locales', () => {
  const en = load('en');
  const zh = load('zh-CN');

  it('have the same namespaces in both languages', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });

  for (const ns of Object.keys(en)) {
    it(`${ns}: same keys in en and zh-CN, none empty`, () => {
      const enKeys = new Set(flatten(en[ns]).map(base));
      const zhKeys = new Set(flatten(zh[ns] ?? {}).map(base));
      expect(
        [...enKeys].filter((k) => !zhKeys.has(k)),
        'missing in zh-CN',
      ).toEqual([]);
      expect(
        [...zhKeys].filter((k) => !enKeys.has(k)),
        'missing in en',
      ).toEqual([]);
      // every plural key has its _other form, which i18next uses for Chinese and as the fallback
      for (const lang of [en, zh]) {
        const keys = flatten(lang[ns]);
        for (const k of keys.filter((key) => /_(one|zero|two|few|many)$/.test(key)))
          expect(keys).toContain(k.replace(/_\w+$/, '_other'));
      }
      for (const lang of [en[ns], zh[ns]]) {
        const empty = flatten(lang).filter((k) => {
          const value = k.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], lang);
          return typeof value !== 'string' || (value.trim() === '' && k !== 'unit.separator');
        });
        expect(empty).toEqual([]);
      }
    });
  }

  it('groups bundled files by language and namespace', () => {
    const resources = collectResources({
      './locales/en/common.json': { default: { a: 'A' } },
      './locales/zh-CN/common.json': { default: { a: '甲' } },
      './locales/en/runs.json': { default: { b: 'B' } },
    });
    expect(resources).toEqual({ en: { common: { a: 'A' }, runs: { b: 'B' } }, 'zh-CN': { common: { a: '甲' } } });
  });

  it('follows the browser language unless the user chose one', () => {
    expect(detectLanguage(null, 'zh-CN')).toBe('zh-CN');
    expect(detectLanguage(null, 'zh-TW')).toBe('zh-CN');
    expect(detectLanguage(null, 'de-DE')).toBe('en');
    expect(detectLanguage('en', 'zh-CN')).toBe('en');
    expect(detectLanguage('zh-CN', 'en-US')).toBe('zh-CN');
    expect(detectLanguage('fr', 'en-US')).toBe('en');
  });
});
