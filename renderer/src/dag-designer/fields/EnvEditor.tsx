// Environment variables as NAME = value rows. Rows are a draft: while a name is missing, invalid
// or repeated, the row says so and the spec keeps its last valid map; rows stay in their order,
// which is the order `ax export` writes them. A row marked secret holds a secret's NAME, not its
// value: the value is set on each worker (`ax secrets set`, or the desktop Settings).
import { DeleteOutlined, LockOutlined, PlusOutlined, UnlockOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Tooltip, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type EnvValue, isSecretRef, SECRET_NAME } from '../../../../engine/api/secrets.ts';
import { useReportDraftError } from './draft-errors.ts';
import { mono } from './mono.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Row {
  id: number;
  key: string;
  value: string;
  /** value is a secret's name */
  secret: boolean;
}

let rowIds = 1;
type Env = Record<string, EnvValue>;
const sameEntries = (a: Env, b: Env) => JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
const rowsOf = (env: Env): Row[] =>
  Object.entries(env).map(([key, value]) =>
    isSecretRef(value)
      ? { id: rowIds++, key, value: value.secret, secret: true }
      : { id: rowIds++, key, value, secret: false },
  );

/** a blank row (no name, no value) is ignored: it is where the user is about to type */
const isBlank = (r: { key: string; value: string }) => r.key === '' && r.value === '';

export function rowProblems(
  rows: readonly { key: string; value: string; secret?: boolean }[],
): ('empty' | 'invalid' | 'duplicate' | 'secretName' | undefined)[] {
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(r.key, (seen.get(r.key) ?? 0) + 1);
  return rows.map((r) =>
    isBlank(r) && !r.secret
      ? undefined
      : r.key === ''
        ? 'empty'
        : !ENV_NAME.test(r.key)
          ? 'invalid'
          : (seen.get(r.key) ?? 0) > 1
            ? 'duplicate'
            : r.secret && !SECRET_NAME.test(r.value)
              ? 'secretName'
              : undefined,
  );
}

export function EnvEditor({
  id,
  value,
  onChange,
  serverErrors,
}: {
  id: string;
  value: Env;
  onChange: (env: Env) => void;
  serverErrors?: string[];
}) {
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
    const env: Env = Object.fromEntries(
      next.filter((r) => r.secret || !isBlank(r)).map((r) => [r.key, r.secret ? { secret: r.value } : r.value]),
    );
    if (sameEntries(env, sent.current)) return;
    sent.current = env;
    onChange(env);
  };
  const patch = (rowId: number, change: Partial<Row>) =>
    update(rows.map((r) => (r.id === rowId ? { ...r, ...change } : r)));

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
            <Input
              aria-label={t(row.secret ? 'env.secretLabel' : 'env.valueLabel', { n: i + 1 })}
              placeholder={t(row.secret ? 'env.secretPlaceholder' : 'env.valuePlaceholder')}
              value={row.value}
              prefix={row.secret ? <LockOutlined aria-hidden /> : undefined}
              onChange={(e) => patch(row.id, { value: e.target.value })}
              style={{ flex: 1, minWidth: 0, ...(row.secret && mono) }}
            />
            <Tooltip title={t(row.secret ? 'env.secretOn' : 'env.secretOff')}>
              <Button
                type={row.secret ? 'primary' : 'text'}
                ghost={row.secret}
                icon={row.secret ? <LockOutlined /> : <UnlockOutlined />}
                aria-label={t('env.markSecret', { name: row.key || String(i + 1) })}
                aria-pressed={row.secret}
                // Turning a literal into a reference drops the literal: a value typed here would
                // otherwise be kept as the secret's name and end up in the workflow.
                onClick={() => patch(row.id, { secret: !row.secret, value: '' })}
              />
            </Tooltip>
            <Button
              type="text"
              icon={<DeleteOutlined />}
              aria-label={t('env.remove', { name: row.key || String(i + 1) })}
              onClick={() => update(rows.filter((r) => r.id !== row.id))}
            />
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
        <Button
          size="small"
          icon={<PlusOutlined />}
          onClick={() => setRows([...rows, { id: rowIds++, key: '', value: '', secret: false }])}
        >
          {t('env.add')}
        </Button>
      </div>
    </Flex>
  );
}
