// The engine's reasons in the reader's language: a record's reasonCode is translated in the
// `reasons` namespace; with no code (older rows, codes the UI does not know) the engine's English.
// Arguments come raw (engine/api/reasons.ts): durations in ms and instants in epoch ms, formatted
// here by i18next formats named in the templates: `{{x, duration}}`, `{{x, seconds}}`,
// `{{x, clock}}` (in the `zone` argument's time zone) and `{{x, iso}}` (a date and time).
import type { i18n as I18n } from 'i18next';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import type { ReasonCode } from '../../../engine/api/reason-code.ts';
import { formatDateTime, formatDuration, type DurationUnits } from './time.ts';

export interface HasReason {
  reason?: string;
  reasonCode?: ReasonCode;
}

/** the i18next instances the formats were added to (the app's, a test's) */
const formatted = new WeakSet<I18n>();

function units(i18n: I18n, lng: string): DurationUnits {
  const t = i18n.getFixedT(lng, 'common');
  return {
    ms: t('unit.ms'),
    s: t('unit.s'),
    min: t('unit.min'),
    h: t('unit.h'),
    d: t('unit.d'),
    separator: t('unit.separator'),
    pattern: (n, unit) => t('unit.pattern', { n: n.toLocaleString(lng), unit }),
  };
}

/** Adds the reason formats to an i18next instance, once. */
export function addReasonFormats(i18n: I18n): void {
  const formatter = i18n.services.formatter;
  if (!formatter || formatted.has(i18n)) return;
  formatted.add(i18n);
  const duration = (value: unknown, lng: string | undefined) =>
    typeof value === 'number' ? formatDuration(value, units(i18n, lng ?? i18n.language)) : String(value);
  formatter.add('duration', duration);
  formatter.add('seconds', duration);
  formatter.add('clock', (value: unknown, lng: string | undefined, options: Record<string, unknown>) =>
    typeof value === 'number'
      ? new Intl.DateTimeFormat(lng, {
          timeZone: typeof options.zone === 'string' ? options.zone : undefined,
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        }).format(value)
      : String(value),
  );
  formatter.add('iso', (value: unknown, lng: string | undefined) =>
    typeof value === 'number' ? formatDateTime(value, lng ?? i18n.language) : String(value),
  );
}

/**
 * `(code, english) => text`: a code in the reader's language, or the English when the UI does not
 * know the code. An alert line quoting a reason (its `reason_code` argument) translates the quoted reason too.
 */
export function useCodeText(): (code: ReasonCode | undefined, english: string | undefined) => string | undefined {
  const { t, i18n } = useTranslation('reasons');
  addReasonFormats(i18n);
  return useCallback(
    function text(code: ReasonCode | undefined, english: string | undefined): string | undefined {
      // bidi controls in what a task or a person wrote (an error, a name) are shown, never obeyed
      if (!code || !i18n.exists(`reasons:${code.code}`))
        return english === undefined ? undefined : showBidiControls(english);
      const args: Record<string, unknown> = { ...code.args };
      const quoted = parseCode(code.args?.reason_code);
      if (quoted) args.reason = text(quoted, String(code.args?.reason ?? ''));
      return showBidiControls(t(code.code, { ...args, defaultValue: english ?? code.code }));
    },
    [t, i18n],
  );
}

function parseCode(json: string | number | undefined): ReasonCode | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const code = JSON.parse(json) as ReasonCode;
    return typeof code?.code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** `(record) => text`: the translated reason, or the engine's text when there is no code for it. */
export function useReasonText(): (record: HasReason) => string | undefined {
  const text = useCodeText();
  return useCallback((record: HasReason) => text(record.reasonCode, record.reason), [text]);
}

/** An alert's title and message in the reader's language (each line by its code; a line without one as written). */
export function useAlertText(): (alert: {
  title: string;
  message: string;
  titleCode?: ReasonCode;
  messageCodes?: ReasonCode[];
}) => { title: string; message: string } {
  const text = useCodeText();
  return useCallback(
    (alert) => {
      const lines = alert.message.split('\n');
      const codes = alert.messageCodes;
      return {
        title: text(alert.titleCode, alert.title) ?? alert.title,
        // A message whose lines and codes do not match up (a masked line split in two) stays as written.
        message:
          codes && codes.length === lines.length
            ? lines.map((line, i) => text(codes[i], line) ?? line).join('\n')
            : alert.message,
      };
    },
    [text],
  );
}
