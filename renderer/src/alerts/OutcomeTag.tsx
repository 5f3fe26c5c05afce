// An alert delivery's outcome as a tag: its own icon per outcome (never told by colour alone),
// antd preset colours, which the dark algorithm re-tints; why a delivery failed, or what
// "grouped" and "not sent" mean, in its tooltip.
import {
  CheckCircleOutlined,
  CloseCircleOutlined,
  GroupOutlined,
  MinusCircleOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { Tag, Tooltip } from 'antd';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import type { AlertState } from '../../../engine/api/alerts.ts';

const STYLES: Record<
  AlertState,
  { Icon: ComponentType<{ spin?: boolean; 'aria-hidden'?: boolean }>; color: string; spin?: boolean }
> = {
  sent: { Icon: CheckCircleOutlined, color: 'success' },
  failed: { Icon: CloseCircleOutlined, color: 'error' },
  sending: { Icon: SyncOutlined, color: 'processing', spin: true },
  grouped: { Icon: GroupOutlined, color: 'default' },
  unsent: { Icon: MinusCircleOutlined, color: 'warning' },
};

export function OutcomeTag({ state, error }: { state: AlertState; error?: string }) {
  const { t } = useTranslation('alerts');
  const style = STYLES[state] ?? STYLES.unsent;
  const help =
    state === 'failed' ? error : state === 'grouped' || state === 'unsent' ? t(`outcomeHelp.${state}`) : undefined;
  const tag = (
    <Tag
      color={style.color}
      icon={<style.Icon spin={style.spin} aria-hidden />}
      data-outcome={state}
      style={{ marginInlineEnd: 0 }}
    >
      {t(`outcome.${state}`)}
    </Tag>
  );
  return help ? (
    <Tooltip title={help}>
      <span style={{ display: 'inline-block' }}>{tag}</span>
    </Tooltip>
  ) : (
    tag
  );
}
