// A size typed as in workflow files ("50MB", "512KB", or bytes): a ParsedInput with the engine's
// size parser. An empty box is no limit.
import { formatSize, parseSize } from '../../../../engine/api/size.ts';
import { type Parsed, ParsedInput } from './ParsedInput.tsx';

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
export function sizeError(text: string): Parsed {
  if (text.trim() === '') return {};
  const parsed = parseSize(text);
  return 'error' in parsed ? { error: parsed.error } : { value: parsed.bytes };
}

export function SizeInput(props: SizeInputProps) {
  return <ParsedInput {...props} parse={sizeError} format={formatSize} />;
}
