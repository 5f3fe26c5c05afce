// One field of a side-panel form, with its problems shown under it: local errors (a half-typed
// value) first, then the engine's problems for that field path from the last validation.
import { Form } from 'antd';
import type { ReactNode } from 'react';

export interface ProblemFieldProps {
  /** the field's path in the workflow file, e.g. "retry_backoff.delay" */
  field: string;
  label: ReactNode;
  /** field → messages of the last validation */
  problems: ReadonlyMap<string, string[]>;
  local?: string;
  extra?: ReactNode;
  required?: boolean;
  children: ReactNode;
}

/** The field component of one form, whose inputs have the ids idOf(field). */
export function problemField(idOf: (field: string) => string) {
  return function Field({ field, label, problems, local, extra, required, children }: ProblemFieldProps) {
    const messages = [...(local ? [local] : []), ...(problems.get(field) ?? [])];
    return (
      <Form.Item
        label={label}
        required={required}
        htmlFor={idOf(field)}
        validateStatus={messages.length ? 'error' : undefined}
        help={messages.length ? <span data-testid={`problem-${field}`}>{messages.join(' · ')}</span> : undefined}
        extra={extra}
        style={{ marginBottom: 14 }}
      >
        {children}
      </Form.Item>
    );
  };
}
