// A run's (or a backfill's) parameter values, one `name = value` chip each, in the order given.
import { Flex, Tag, Typography } from 'antd';
import type { ParamValue } from '../../../engine/api/types.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

export function ParamValues({ params, testId }: { params?: Record<string, ParamValue>; testId?: string }) {
  const entries = Object.entries(params ?? {});
  if (entries.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Flex gap={4} wrap data-testid={testId}>
      {entries.map(([name, value]) => (
        <Tag key={name} style={{ marginInlineEnd: 0, fontFamily: 'ui-monospace, Menlo, Consolas, monospace' }}>
          {name} = {showBidiControls(String(value))}
        </Tag>
      ))}
    </Flex>
  );
}
