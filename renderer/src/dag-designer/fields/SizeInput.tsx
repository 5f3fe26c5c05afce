// A size typed as in workflow files ("50MB", "512KB", or bytes), parsed by the engine's own parser
// so the designer accepts exactly what `ax apply` does. An unparsable text stays in the box with
// the parser's message under it; the spec keeps its last valid value meanwhile.
import { Input } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { formatSize, parseSize } from '../../../../engine/api/size.ts';
import { useReportDraftError } from './draft-errors.ts';
import { mono } from './mono.ts';

export interface SizeInputProps {
  id: string;
  value: number | undefined;
  /** undefined when the box is emptied */
  onChange: (bytes: number | undefined) => void;
  placeholder?: string;
  /** the error text to show; the parent puts it on its Form.Item */
  onError: (error: string | undefined) => void;
}

/** The bytes of a typed size, none for an empty box, or the parser's message. */
export function sizeError(text: string): { bytes?: number; error?: string } {
  if (text.trim() === '') return {};
  const parsed = parseSize(text);
  return 'error' in parsed ? { error: parsed.error } : { bytes: parsed.bytes };
}

export function SizeInput({ id, value, onChange, placeholder, onError }: SizeInputProps) {
  const [text, setText] = useState(() => (value === undefined ? '' : formatSize(value)));
  const [error, setError] = useState<string | undefined>();
  // the value this box last sent: anything else arriving (undo, another task) replaces the draft
  const sent = useRef<number | undefined>(value);
  useEffect(() => {
    if (value === sent.current) return;
    sent.current = value;
    setText(value === undefined ? '' : formatSize(value));
    setError(undefined);
  }, [value]);
  useEffect(() => onError(error), [error, onError]);
  useReportDraftError(id, error);
  return (
    <Input
      id={id}
      value={text}
      placeholder={placeholder}
      aria-invalid={error !== undefined}
      status={error ? 'error' : undefined}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        const r = sizeError(next);
        setError(r.error);
        if (r.error) return;
        sent.current = r.bytes;
        if (r.bytes !== value) onChange(r.bytes);
      }}
      onBlur={() => {
        // tidy a valid entry into its canonical form ("1024KB" → "1MB") once the user leaves it
        if (!error && value !== undefined) setText(formatSize(value));
      }}
      style={mono}
    />
  );
}
