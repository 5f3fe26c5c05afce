// Environment variables as NAME = value rows. Rows are a draft: while a name is missing, invalid
// or repeated, the row says so and the spec keeps its last valid map; rows stay in their order,
// which is the order `ax export` writes them.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useReportDraftError } from './draft-errors.ts';
import { mono } from './mono.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Row {
  id: number;
  key: string;
  value: string;
}

let rowIds = 1;
const sameEntries = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
const rowsOf = (env: Record<string, string>): Row[] => Object.entries(env).map(([key, value]) => ({ id: rowIds++, key, value }));

/** a blank row (no name, no value) is ignored: it is where the user is about to type */
const isBlank = (r: { key: string; value: string }) => r.key === '' && r.value === '';

export function rowProblems(rows: readonly { key: string; value: string }[]): ('empty' | 'invalid' | 'duplicate' | undefined)[] {
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(r.key, (seen.get(r.key) ?? 0) + 1);
  return rows.map((r) => (isBlank(r) ? undefined : r.key === '' ? 'empty' :  !ENV_NAME.test(r.key) ? 'invalid' : (seen.get(r.key) ?? 0) > 1 ? 'duplicate' : undefined));
}

export function EnvEditor({ id, value, onChange, serverErrors }: { id: string; value: Record<string, string>; onChange: (env: Record<string, string>) => void; serverErrors?: string[] }) {
  const { t } = useTranslation('designer');
  const [rows, setRows] = useState<Row[]>(() => rowsOf(value));
  const sent = useRef(value);
  useEffect(() => {
    if (value === sent.current) return;
    sent.current = value;
    setRows(rowsOf(value));
  }, [value]);
  const problems = useMemo(() => rowProblems(rows), [rows]);
  const firstProblem = problems.find((p) => p !== undefined);
  useReportDraftError(id, firstProblem ? t(`env.${firstProblem}`) : undefined);

  const update = (next: Row[]) => {
    setRows(next);
    if (rowProblems(next).some((p) => p !== undefined)) return;
    const env = Object.fromEntries(next.filter((r) => !isBlank(r)).map((r) => [r.key, r.value]));
    if (sameEntries(env, sent.current)) return;
    sent.current = env;
    onChange(env);
  };
  const patch = (rowId: number, change: Partial<Row>) => update(rows.map((r) => (r.id === rowId ? { ...r, ...change } : r)));

  return (
    <Flex vertical gap={6} id={id} role="group" aria-label={t('field.env')}>
      {rows.length === 0 && <Typography.Text type="secondary">{t('env.none')}</Typography.Text>}
      {rows.map((row, i) => (
        <Flex key={row.id} vertical gap={2}>
          <Flex gap={6} align="center">
            <Input
              aria-label={t('env.nameLabel', { n: i + 1 })}
              placeholder={t('env.namePlaceholder')}
              value={row.key}
              status={problems[i] ? 'error' : undefined}
              aria-invalid={problems[i] !== undefined}
              onChange={(e) => patch(row.id, { key: e.target.value })}
              style={{ flex: '0 0 40%', ...mono }}
            />
            <span aria-hidden>=</span>
            <Input aria-label={t('env.valueLabel', { n: i + 1 })} placeholder={t('env.valuePlaceholder')} value={row.value} onChange={(e) => patch(row.id, { value: e.target.value })} style={{ flex: 1, minWidth: 0 }} />
            <Button type="text" icon={<DeleteOutlined />} aria-label={t('env.remove', { name: row.key || String(i + 1) })} onClick={() => update(rows.filter((r) => r.id !== row.id))} />
          </Flex>
          {problems[i] && (
            <Typography.Text type="danger" style={{ fontSize: 12 }}>
              {t(`env.${problems[i]}`)}
            </Typography.Text>
          )}
        </Flex>
      ))}
      {serverErrors?.map((m) => (
        <Typography.Text key={m} type="danger" style={{ fontSize: 12 }}>
          {m}
        </Typography.Text>
      ))}
      <div>
        <Button size="small" icon={<PlusOutlined />} onClick={() => setRows([...rows, { id: rowIds++, key: '', value: '' }])}>
          {t('env.add')}
        </Button>
      </div>
    </Flex>
  );
}
