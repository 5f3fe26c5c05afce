// Every problem of the last validation, each a button that opens the task or field concerned.
import { CheckCircleOutlined, WarningOutlined } from '@ant-design/icons';
import { Button, Flex, List, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PlacedProblem } from './model/problems.ts';

export function ProblemsList({
  problems,
  checked,
  onOpen,
}: {
  problems: readonly PlacedProblem[];
  checked: boolean;
  onOpen: (p: PlacedProblem) => void;
}) {
  const { t } = useTranslation('designer');
  if (problems.length === 0) {
    return (
      <Typography.Text type="secondary" data-testid="no-problems">
        {checked ? (
          <>
            <CheckCircleOutlined aria-hidden /> {t('problems.none')}
          </>
        ) : (
          t('problems.notChecked')
        )}
      </Typography.Text>
    );
  }
  return (
    <List
      size="small"
      data-testid="problems-list"
      dataSource={[...problems]}
      renderItem={(p, i) => (
        <List.Item key={`${p.path}-${i}`} style={{ paddingInline: 0 }}>
          <Flex vertical gap={2} style={{ minWidth: 0 }}>
            <Button
              type="link"
              size="small"
              style={{
                padding: 0,
                height: 'auto',
                textAlign: 'start',
                whiteSpace: 'normal',
                justifyContent: 'flex-start',
                alignSelf: 'flex-start',
              }}
              onClick={() => onOpen(p)}
            >
              <WarningOutlined aria-hidden /> <code>{p.path || t('problems.wholeFile')}</code>
            </Button>
            <Typography.Text style={{ overflowWrap: 'anywhere' }}>{p.message}</Typography.Text>
          </Flex>
        </List.Item>
      )}
    />
  );
}
