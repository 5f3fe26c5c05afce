// A duration typed as in workflow files ("90s", "30m", "1h30m"): a ParsedInput with the engine's
// duration parser, and the designer's own words for an empty box or a zero where neither is allowed.
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration, parseDuration } from '../../../../engine/core/model/duration.ts';
import { type Parsed, ParsedInput } from './ParsedInput.tsx';

export interface DurationInputProps {
  id: string;
  value: number | undefined;
  /** undefined when the box is emptied (only if allowEmpty) */
  onChange: (ms: number | undefined) => void;
  allowEmpty?: boolean;
  /** zero is refused (a timeout of 0 means nothing) */
  positive?: boolean;
  placeholder?: string;
  /** the error text to show; the parent puts it on its Form.Item */
  onError: (error: string | undefined) => void;
  ariaInvalid?: boolean;
}

export function durationError(
  text: string,
  options: { allowEmpty?: boolean; positive?: boolean },
  t: (k: string) => string,
): Parsed {
  if (text.trim() === '') return options.allowEmpty ? {} : { error: t('field.durationRequired') };
  const parsed = parseDuration(text);
  if ('error' in parsed) return { error: parsed.error };
  if (options.positive && parsed.ms === 0) return { error: t('field.durationPositive') };
  return { value: parsed.ms };
}

export function DurationInput({ allowEmpty, positive, ...props }: DurationInputProps) {
  const { t } = useTranslation('designer');
  const parse = useCallback(
    (text: string) => durationError(text, { allowEmpty, positive }, t),
    [allowEmpty, positive, t],
  );
  return <ParsedInput {...props} parse={parse} format={formatDuration} />;
}
