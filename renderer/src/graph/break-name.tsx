// A task name that may wrap where a reader splits it, after "_", "-", "." or "/" (extract_|orders),
// rather than at any letter: the compact node gives a long name two lines.
import { Fragment, type ReactNode } from 'react';

export function breakableName(name: string): ReactNode {
  const parts = name.split(/(?<=[_\-./])/);
  if (parts.length === 1) return name;
  return parts.map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}
