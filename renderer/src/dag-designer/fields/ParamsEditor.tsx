// A workflow's `params:` as a list of small cards, one per param, in the file's order: name, type,
// required, default (a box that fits the type), description, and what the type allows (choices for
// an enum, a pattern for text, min/max for a number). The engine's problems for a param
// ("params.day.default: …") show on its card; a name left empty or repeated is said at once.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Checkbox, Flex, Input, InputNumber, Select, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { PARAM_TYPES, type ParamSpec, type ParamType, type ParamValue } from '../../../../engine/api/types.ts';
import { NAME_PATTERN } from '../model/spec-ops.ts';
import { mono } from './mono.ts';

export interface ParamsEditorProps {
  id: string;
  params: readonly ParamSpec[];
  /** messages per `params.NAME` (and `params` for the list as a whole) */
  problems: ReadonlyMap<string, string[]>;
  onChange: (params: ParamSpec[]) => void;
  /** the id of a param's name box, for focusing a problem */
  idOf: (field: string) => string;
}

/** as AX_PARAM_<NAME>: upper-cased, anything outside A-Z 0-9 _ as _ */
export const envNameOf = (name: string): string => `AX_PARAM_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;

export function nameProblem(
  params: readonly ParamSpec[],
  index: number,
): 'nameEmpty' | 'nameInvalid' | 'nameTaken' | undefined {
  const name = params[index]?.name ?? '';
  if (name === '') return 'nameEmpty';
  if (!NAME_PATTERN.test(name)) return 'nameInvalid';
  if (params.some((p, i) => i !== index && p.name === name)) return 'nameTaken';
  return undefined;
}

/** "param-1", "param-2", …: the first that is free */
function freeName(params: readonly ParamSpec[]): string {
  for (let i = 1; ; i++) if (!params.some((p) => p.name === `param-${i}`)) return `param-${i}`;
}

/** A type change keeps what still means something and drops what the new type cannot hold. */
export function retype(p: ParamSpec, type: ParamType): ParamSpec {
  const out: ParamSpec = { name: p.name, type, required: p.required };
  if (p.description !== undefined) out.description = p.description;
  if (type === 'enum') out.choices = p.choices ?? [];
  if (type === 'string' && p.pattern !== undefined) out.pattern = p.pattern;
  if (type === 'number') {
    if (p.min !== undefined) out.min = p.min;
    if (p.max !== undefined) out.max = p.max;
  }
  if (
    p.default !== undefined &&
    typeof p.default === (type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : 'string')
  )
    out.default = p.default;
  return out;
}

export function ParamsEditor({ id, params, problems, onChange, idOf }: ParamsEditorProps) {
  const { t } = useTranslation('designer');
  const { token } = theme.useToken();
  const set = (index: number, next: ParamSpec) => onChange(params.map((p, i) => (i === index ? next : p)));
  const patch = (index: number, change: Partial<ParamSpec>) => {
    const next = { ...(params[index] as ParamSpec), ...change } as Record<string, unknown>;
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete next[k];
    set(index, next as unknown as ParamSpec);
  };

  return (
    <Flex vertical gap={8} id={id} role="group" aria-label={t('field.params')} data-testid="params-editor">
      {params.length === 0 && <Typography.Text type="secondary">{t('params.none')}</Typography.Text>}
      {params.map((p, i) => {
        const local = nameProblem(params, i);
        const messages = [...(local ? [t(`params.${local}`)] : []), ...(problems.get(`params.${p.name}`) ?? [])];
        return (
          <fieldset
            key={i}
            aria-label={t('params.label', { n: i + 1 })}
            data-testid={`param-${i}`}
            style={{
              border: `1px solid ${messages.length ? token.colorError : token.colorBorderSecondary}`,
              borderRadius: token.borderRadius,
              padding: 8,
              margin: 0,
            }}
          >
            <Flex gap={6} align="center">
              <Input
                id={idOf(`params.${p.name}`)}
                aria-label={t('params.name')}
                value={p.name}
                status={local ? 'error' : undefined}
                spellCheck={false}
                style={{ flex: 1, minWidth: 0, ...mono }}
                onChange={(e) => patch(i, { name: e.target.value })}
              />
              <Select
                aria-label={t('params.type')}
                value={p.type}
                style={{ width: 130 }}
                options={PARAM_TYPES.map((type) => ({ value: type, label: t(`params.types.${type}`) }))}
                onChange={(type: ParamType) => set(i, retype(p, type))}
              />
              <Button
                type="text"
                icon={<DeleteOutlined />}
                aria-label={t('params.remove', { name: p.name || String(i + 1) })}
                onClick={() => onChange(params.filter((_, j) => j !== i))}
              />
            </Flex>
            <Flex gap={8} align="center" wrap style={{ marginTop: 6 }}>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('params.default')}
              </Typography.Text>
              <DefaultBox param={p} onChange={(value) => patch(i, { default: value })} />
              <Checkbox checked={p.required} onChange={(e) => patch(i, { required: e.target.checked })}>
                {t('params.required')}
              </Checkbox>
            </Flex>
            {p.type === 'enum' && (
              <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12, marginTop: 6 }}>
                {t('params.choices')}
              </Typography.Text>
            )}
            {p.type === 'enum' && (
              <Select
                mode="tags"
                aria-label={t('params.choices')}
                value={p.choices ?? []}
                placeholder={t('params.choicesPlaceholder')}
                tokenSeparators={[',']}
                open={false}
                suffixIcon={null}
                style={{ width: '100%', marginTop: 2 }}
                onChange={(choices: string[]) => patch(i, { choices: choices.filter((c) => c.trim() !== '') })}
              />
            )}
            {p.type === 'string' && (
              <Input
                aria-label={t('params.pattern')}
                placeholder={t('params.pattern')}
                value={p.pattern ?? ''}
                spellCheck={false}
                style={{ marginTop: 6, ...mono }}
                onChange={(e) => patch(i, { pattern: e.target.value || undefined })}
              />
            )}
            {p.type === 'number' && (
              <Flex gap={6} style={{ marginTop: 6 }}>
                {(['min', 'max'] as const).map((k) => (
                  <InputNumber
                    key={k}
                    aria-label={t(`params.${k}`)}
                    prefix={
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {t(`params.${k}`)}
                      </Typography.Text>
                    }
                    value={p[k]}
                    style={{ flex: 1 }}
                    onChange={(v) => patch(i, { [k]: typeof v === 'number' ? v : undefined })}
                  />
                ))}
              </Flex>
            )}
            <Input
              aria-label={t('params.description')}
              placeholder={t('params.description')}
              value={p.description ?? ''}
              style={{ marginTop: 6 }}
              onChange={(e) => patch(i, { description: e.target.value || undefined })}
            />
            {messages.length > 0 ? (
              <Typography.Text
                type="danger"
                style={{ display: 'block', fontSize: 12, marginTop: 4 }}
                data-testid="param-problem"
              >
                {messages.join(' · ')}
              </Typography.Text>
            ) : (
              p.name !== '' && (
                <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12, marginTop: 4 }}>
                  {t('params.envName', { env: envNameOf(p.name) })}
                </Typography.Text>
              )
            )}
          </fieldset>
        );
      })}
      {(problems.get('params') ?? []).map((m) => (
        <Typography.Text key={m} type="danger" style={{ fontSize: 12 }}>
          {m}
        </Typography.Text>
      ))}
      <div>
        <Button
          size="small"
          icon={<PlusOutlined />}
          onClick={() => onChange([...params, { name: freeName(params), type: 'string', required: false }])}
        >
          {t('params.add')}
        </Button>
      </div>
    </Flex>
  );
}

/** The default in a box that fits the type; empty means no default. */
function DefaultBox({ param, onChange }: { param: ParamSpec; onChange: (value: ParamValue | undefined) => void }) {
  const { t } = useTranslation('designer');
  const value = param.default;
  if (param.type === 'number')
    return (
      <InputNumber
        aria-label={t('params.default')}
        value={typeof value === 'number' ? value : null}
        placeholder={t('params.noDefault')}
        style={{ width: 140 }}
        onChange={(v) => onChange(typeof v === 'number' ? v : undefined)}
      />
    );
  if (param.type === 'boolean' || param.type === 'enum') {
    const options =
      param.type === 'boolean'
        ? [
            { value: 'true', label: t('params.bool.true') },
            { value: 'false', label: t('params.bool.false') },
          ]
        : (param.choices ?? []).map((c) => ({ value: c, label: c }));
    return (
      <Select
        aria-label={t('params.default')}
        value={value === undefined ? undefined : String(value)}
        placeholder={t('params.noDefault')}
        allowClear
        style={{ width: 140 }}
        options={options}
        onChange={(v: string | undefined) =>
          onChange(v === undefined ? undefined : param.type === 'boolean' ? v === 'true' : v)
        }
      />
    );
  }
  return (
    <Input
      aria-label={t('params.default')}
      value={value === undefined ? '' : String(value)}
      placeholder={param.type === 'string' ? t('params.noDefault') : t(`params.placeholder.${param.type}`)}
      spellCheck={false}
      style={{ width: param.type === 'datetime' ? 200 : 140, ...mono }}
      onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
    />
  );
}
