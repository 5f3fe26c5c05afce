// A number typed as text in a workflow file's own notation (a duration, a size), parsed by the
// engine's parser so the designer accepts exactly what `ax apply` does. An unparsable text stays
// in the box with the parser's message under it; the spec keeps its last valid value meanwhile.
// DurationInput and SizeInput are this with their parser and formatter.
import { Input } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useReportDraftError } from './draft-errors.ts';
import { mono } from './mono.ts';

/** What a typed text means: a value, nothing (an empty box), or the reason it means nothing. */
export interface Parsed {
  value?: number;
  error?: string;
}

export interface ParsedInputProps {
  id: string;
  value: number | undefined;
  /** undefined when the box is emptied (if `parse` accepts an empty text) */
  onChange: (value: number | undefined) => void;
  parse: (text: string) => Parsed;
  /** the canonical text of a value, shown for it and once a valid entry is left */
  format: (value: number) => string;
  placeholder?: string;
  /** the error text to show; the parent puts it on its Form.Item */
  onError: (error: string | undefined) => void;
  ariaInvalid?: boolean;
}

export function ParsedInput({
  id,
  value,
  onChange,
  parse,
  format,
  placeholder,
  onError,
  ariaInvalid,
}: ParsedInputProps) {
  const [text, setText] = useState(() => (value === undefined ? '' : format(value)));
  const [error, setError] = useState<string | undefined>();
  // the value this box last sent: anything else arriving (undo, another task) replaces the draft
  const sent = useRef<number | undefined>(value);
  useEffect(() => {
    if (value === sent.current) return;
    sent.current = value;
    setText(value === undefined ? '' : format(value));
    setError(undefined);
  }, [value, format]);
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
        const r = parse(next);
        setError(r.error);
        if (r.error) return;
        sent.current = r.value;
        if (r.value !== value) onChange(r.value);
      }}
      onBlur={() => {
        // tidy a valid entry into its canonical form ("90m" → "1h30m", "1024KB" → "1MB") once left
        if (!error && value !== undefined) setText(format(value));
      }}
      style={mono}
    />
  );
}
