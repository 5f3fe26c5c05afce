// One field per workflow parameter, by type: string → text (its pattern shown), number → number
// box (min/max), boolean → switch, date → date picker, datetime → date and time picker, enum →
// select. The description is the field's help; a problem (checkParams's message) shows on it.
import { Col, DatePicker, Form, Input, InputNumber, Row, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ParamSpec, ParamValue } from '../../../../engine/api/types.ts';
import { dayjs } from '../../shared/day.ts';
import type { ParamFormValues } from './param-values.ts';

interface Props {
  specs: readonly ParamSpec[];
  values: ParamFormValues;
  onChange: (name: string, value: ParamValue | undefined) => void;
  /** a message per parameter to show on its field */
  problems: Record<string, string>;
  /** ids are `${idPrefix}-NAME` (two forms on one page stay apart) */
  idPrefix: string;
}

const DATE = 'YYYY-MM-DD';

export function ParamFields({ specs, values, onChange, problems, idPrefix }: Props) {
  // two columns: a dialog with six params still fits a laptop's screen
  return (
    <Row gutter={16}>
      {specs.map((spec) => (
        <Col key={spec.name} xs={24} sm={12}>
          <ParamField
            spec={spec}
            id={`${idPrefix}-${spec.name}`}
            value={values[spec.name]}
            problem={problems[spec.name]}
            onChange={(value) => onChange(spec.name, value)}
          />
        </Col>
      ))}
    </Row>
  );
}

function ParamField({
  spec,
  id,
  value,
  problem,
  onChange,
}: {
  spec: ParamSpec;
  id: string;
  value: ParamValue | undefined;
  problem?: string;
  onChange: (value: ParamValue | undefined) => void;
}) {
  const { t } = useTranslation('workflows');
  const rule = ruleText(spec, t);
  return (
    <Form.Item
      label={<code className="ax-cmd">{spec.name}</code>}
      htmlFor={id}
      required={spec.required}
      validateStatus={problem ? 'error' : undefined}
      help={problem}
      extra={
        (spec.description || rule) && (
          <span data-testid={`${id}-help`}>
            {spec.description}
            {spec.description && rule ? ' · ' : ''}
            {rule}
          </span>
        )
      }
      style={{ marginBottom: 16 }}
    >
      <ParamInput spec={spec} id={id} value={value} onChange={onChange} invalid={!!problem} />
    </Form.Item>
  );
}

function ParamInput({
  spec,
  id,
  value,
  onChange,
  invalid,
}: {
  spec: ParamSpec;
  id: string;
  value: ParamValue | undefined;
  onChange: (value: ParamValue | undefined) => void;
  invalid: boolean;
}) {
  const { t } = useTranslation('workflows');
  const status = invalid ? 'error' : undefined;
  switch (spec.type) {
    case 'boolean':
      return (
        <Switch
          id={id}
          checked={value === true}
          onChange={(on) => onChange(on)}
          checkedChildren={t('runNow.yes')}
          unCheckedChildren={t('runNow.no')}
        />
      );
    case 'number':
      return (
        <InputNumber
          id={id}
          status={status}
          style={{ width: '100%' }}
          // no min/max here: a box that clamps silently hides the mistake; the message says the range
          value={typeof value === 'number' ? value : undefined}
          onChange={(n) => onChange(n ?? undefined)}
        />
      );
    case 'enum':
      return (
        <Select
          id={id}
          status={status}
          allowClear={!spec.required}
          placeholder={t('runNow.choose')}
          value={typeof value === 'string' ? value : undefined}
          onChange={(v?: string) => onChange(v)}
          options={(spec.choices ?? []).map((c) => ({ value: c, label: c }))}
        />
      );
    case 'date':
      return (
        <DatePicker
          id={id}
          status={status}
          style={{ width: '100%' }}
          format={DATE}
          value={typeof value === 'string' && value ? dayjs(value, DATE) : null}
          onChange={(d) => onChange(d ? d.format(DATE) : undefined)}
        />
      );
    case 'datetime':
      return (
        <DatePicker
          id={id}
          status={status}
          style={{ width: '100%' }}
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          placeholder={t('runNow.pickDateTime')}
          value={typeof value === 'string' && value ? dayjs(value) : null}
          // ISO 8601 with the viewer's offset: the engine keeps the instant
          onChange={(d) => onChange(d ? d.format('YYYY-MM-DDTHH:mm:ssZ') : undefined)}
        />
      );
    default:
      return (
        <Input
          id={id}
          status={status}
          value={typeof value === 'string' ? value : value === undefined ? '' : String(value)}
          onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        />
      );
  }
}

/** what is allowed, in words: "1 to 100", "must match ^[a-z]+$" */
function ruleText(spec: ParamSpec, t: (key: string, options?: Record<string, unknown>) => string): string {
  if (spec.type === 'number' && spec.min !== undefined && spec.max !== undefined)
    return t('runNow.range', { min: spec.min, max: spec.max });
  if (spec.type === 'number' && spec.min !== undefined) return t('runNow.atLeast', { min: spec.min });
  if (spec.type === 'number' && spec.max !== undefined) return t('runNow.atMost', { max: spec.max });
  if (spec.type === 'string' && spec.pattern) return t('runNow.pattern', { pattern: spec.pattern });
  return '';
}
