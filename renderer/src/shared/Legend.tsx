// The frame of a colour legend (the run graph's, the history grid's): a titled list whose items
// each pair a swatch with words, so no state is told by colour alone.
import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';

export function Legend({
  label,
  title,
  testId,
  children,
}: {
  label: string;
  title: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Flex
      wrap
      gap="4px 14px"
      align="center"
      role="list"
      aria-label={label}
      data-testid={testId}
      style={{ fontSize: 12 }}
    >
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {title}
      </Typography.Text>
      {children}
    </Flex>
  );
}

export function LegendItem({ children }: { children: ReactNode }) {
  return (
    <Flex gap={4} align="center" role="listitem">
      {children}
    </Flex>
  );
}
