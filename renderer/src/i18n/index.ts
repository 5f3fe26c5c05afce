// i18next set up once for the whole app. Every feature owns a namespace file per language under
// locales/<lang>/<namespace>.json; they are all bundled (eager glob), so adding a namespace needs
// no edit here. A missing key is recorded (not only warned) so the UI tests can assert there are none.
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'ax.lang';

const files = import.meta.glob<{ default: Record<string, unknown> }>('./locales/*/*.json', { eager: true });

type Resources = Record<string, Record<string, Record<string, unknown>>>;
export function collectResources(modules: Record<string, { default: Record<string, unknown> }>): Resources {
  const resources: Resources = {};
  for (const [file, mod] of Object.entries(modules)) {
    const match = /\/locales\/([^/]+)\/([^/]+)\.json$/.exec(file);
    if (!match) continue;
    const [, lang, ns] = match as unknown as [string, string, string];
    (resources[lang] ??= {})[ns] = mod.default;
  }
  return resources;
}

export function detectLanguage(stored: string | null, navigatorLanguage: string | undefined): Language {
  if (stored === 'en' || stored === 'zh-CN') return stored;
  return navigatorLanguage?.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

function storedLanguage(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** `lang:ns:key` of every key a screen asked for that the bundle lacks (read by the UI tests). */
export const missingKeys: string[] = [];
declare global {
  interface Window {
    __axMissingKeys?: string[];
  }
}

const resources = collectResources(files);

void i18next.use(initReactI18next).init({
  resources,
  lng: detectLanguage(storedLanguage(), typeof navigator === 'undefined' ? undefined : navigator.language),
  fallbackLng: false,
  supportedLngs: [...LANGUAGES],
  ns: Object.keys(resources.en ?? { common: {} }),
  defaultNS: 'common',
  fallbackNS: 'common',
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  saveMissing: true,
  missingKeyHandler: (lngs, ns, key) => {
    const entry = `${lngs.join(',')}:${ns}:${key}`;
    if (!missingKeys.includes(entry)) missingKeys.push(entry);
  },
  react: { useSuspense: false },
});
if (typeof window !== 'undefined') window.__axMissingKeys = missingKeys;
if (typeof document !== 'undefined') document.documentElement.lang = i18next.language;

export function setLanguage(lang: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // private mode: the choice lasts for this page only
  }
  void i18next.changeLanguage(lang);
  document.documentElement.lang = lang;
}

export function currentLanguage(): Language {
  return i18next.language === 'zh-CN' ? 'zh-CN' : 'en';
}

export default i18next;
