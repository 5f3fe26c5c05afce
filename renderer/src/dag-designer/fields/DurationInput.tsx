// A duration typed as in workflow files ("90s", "30m", "1h30m"), parsed by the engine's own
// parser so the designer accepts exactly what `ax apply` does. An unparsable text stays in the
// box with the parser's message under it; the spec keeps its last valid value meanwhile.
import { Input } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration, parseDuration } from '../../../../engine/core/model/duration.ts';
import { useReportDraftError } from './draft-errors.ts';
import { mono } from './mono.ts';

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
): { ms?: number; error?: string } {
  if (text.trim() === '') return options.allowEmpty ? {} : { error: t('field.durationRequired') };
  const parsed = parseDuration(text);
  if ('error' in parsed) return { error: parsed.error };
  if (options.positive && parsed.ms === 0) return { error: t('field.durationPositive') };
  return { ms: parsed.ms };
}

export function DurationInput({
  id,
  value,
  onChange,
  allowEmpty,
  positive,
  placeholder,
  onError,
  ariaInvalid,
}: DurationInputProps) {
  const { t } = useTranslation('designer');
  const [text, setText] = useState(() => (value === undefined ? '' : formatDuration(value)));
  const [error, setError] = useState<string | undefined>();
  // the value this box last sent: anything else arriving (undo, another task) replaces the draft
  const sent = useRef<number | undefined>(value);
  useEffect(() => {
    if (value === sent.current) return;
    sent.current = value;
    setText(value === undefined ? '' : formatDuration(value));
    setError(undefined);
  }, [value]);
  useEffect(() => onError(error), [error, onError]);
  useReportDraftError(id, error);
  return (
    <Input
      id={id}
      value={text}
      placeholder={placeholder}
      aria-invalid={ariaInvalid || error !== undefined}
      status={error ? 'error' : undefined}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        const r = durationError(next, { allowEmpty, positive }, t);
        setError(r.error);
        if (r.error) return;
        sent.current = r.ms;
        if (r.ms !== value) onChange(r.ms);
      }}
      onBlur={() => {
        // tidy a valid entry into its canonical form ("90m" → "1h30m") once the user leaves it
        if (!error && value !== undefined) setText(formatDuration(value));
      }}
      style={mono}
    />
  );
}
