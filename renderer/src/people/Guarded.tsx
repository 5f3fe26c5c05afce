// A button the person's role may not use: disabled, with a tooltip saying what it needs ("Needs
// the operator role — you are a viewer"), or not shown at all where an absent button reads better.
// Allowed: the button as it is.
import { Popconfirm, Tooltip } from 'antd';
import { cloneElement, isValidElement, type ReactElement, type ReactNode } from 'react';
import type { Can } from './use-can.ts';

/** the element disabled, and the button inside a confirmation too (a Popconfirm's own `disabled` only keeps it shut) */
function disabled(element: ReactElement<{ disabled?: boolean; children?: ReactNode }>): ReactElement {
  const inner = element.props.children;
  if (element.type === Popconfirm && isValidElement<{ disabled?: boolean }>(inner))
    return cloneElement(element, { disabled: true }, disabled(inner));
  return cloneElement(element, { disabled: true });
}

export function Guarded({
  can,
  hide,
  children,
}: {
  can: Can;
  /** leave it out instead of greying it out */
  hide?: boolean;
  children: ReactElement<{ disabled?: boolean; children?: ReactNode }>;
}) {
  if (can.allowed) return children;
  if (hide) return null;
  // a disabled button takes no pointer or focus: the span carries the tooltip (and takes focus,
  // so a keyboard user can read why)
  return (
    <Tooltip title={can.why}>
      <span
        tabIndex={0}
        data-testid="not-allowed"
        data-why={can.why}
        style={{ display: 'inline-block', cursor: 'not-allowed' }}
      >
        {disabled(children)}
      </span>
    </Tooltip>
  );
}
