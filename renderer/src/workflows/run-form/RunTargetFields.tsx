// What a manual run covers and for when: its logical time (now unless chosen), and "only this
// task", optionally with everything downstream of it.
import { Checkbox, Col, DatePicker, Form, Row, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { dayjs } from '../../shared/day.ts';

export interface RunTarget {
  /** epoch ms; undefined: now */
  logicalTime?: number;
  task?: string;
  downstream: boolean;
}

export function RunTargetFields({
  tasks,
  value,
  onChange,
}: {
  tasks: readonly string[];
  value: RunTarget;
  onChange: (value: RunTarget) => void;
}) {
  const { t } = useTranslation('workflows');
  return (
    <Row gutter={16}>
      <Col xs={24} sm={12}>
        <Form.Item
          label={t('runNow.logicalTime')}
          htmlFor="run-now-logical-time"
          extra={t('runNow.logicalTimeHelp')}
          style={{ marginBottom: 12 }}
        >
          <DatePicker
            id="run-now-logical-time"
            style={{ width: '100%' }}
            showTime={{ format: 'HH:mm' }}
            format="YYYY-MM-DD HH:mm"
            placeholder={t('runNow.now')}
            value={value.logicalTime === undefined ? null : dayjs(value.logicalTime)}
            onChange={(d) => onChange({ ...value, logicalTime: d ? d.valueOf() : undefined })}
          />
        </Form.Item>
      </Col>
      <Col xs={24} sm={12}>
        <Form.Item
          label={t('runNow.task')}
          htmlFor="run-now-task"
          extra={value.task ? undefined : t('runNow.taskHelp')}
          style={{ marginBottom: 12 }}
        >
          <Select
            id="run-now-task"
            allowClear
            showSearch
            placeholder={t('runNow.allTasks')}
            value={value.task}
            onChange={(task?: string) => onChange({ ...value, task, downstream: task ? value.downstream : false })}
            options={tasks.map((name) => ({ value: name, label: name }))}
          />
        </Form.Item>
        {value.task && (
          <Form.Item style={{ marginTop: -4, marginBottom: 12 }}>
            <Checkbox
              checked={value.downstream}
              onChange={(e) => onChange({ ...value, downstream: e.target.checked })}
              data-testid="run-now-downstream"
            >
              {t('runNow.downstream', { task: value.task })}
            </Checkbox>
          </Form.Item>
        )}
      </Col>
    </Row>
  );
}
