// One look per instance and run state, used by every screen. Each state has its own icon, so a
// state is never told by colour alone (colour-blind safe); colours are antd presets, which the
// dark algorithm re-tints so they stay readable on a dark background.
import {
  CheckCircleOutlined,
  ClockCircleOutlined,
  CloseCircleOutlined,
  DisconnectOutlined,
  FieldTimeOutlined,
  HourglassOutlined,
  QuestionCircleOutlined,
  SendOutlined,
  StepForwardOutlined,
  StopOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import type { ComponentType } from 'react';
import type { InstanceState, RunState } from '../../../engine/api/types.ts';

export type AnyState = InstanceState | RunState;

export interface StateStyle {
  Icon: ComponentType<{ spin?: boolean; style?: React.CSSProperties; 'aria-hidden'?: boolean }>;
  /** antd preset colour name for Tag */
  color:
    | 'default'
    | 'processing'
    | 'success'
    | 'error'
    | 'warning'
    | 'blue'
    | 'cyan'
    | 'geekblue'
    | 'volcano'
    | 'magenta'
    | 'purple'
    | 'gold';
  /** antd token for a bare icon (grid cells, strips) */
  token:
    | 'colorTextTertiary'
    | 'colorInfo'
    | 'colorSuccess'
    | 'colorError'
    | 'colorWarning'
    | 'cyan6'
    | 'geekblue6'
    | 'volcano6'
    | 'magenta6'
    | 'purple6'
    | 'gold6';
  spin?: boolean;
}

const STYLES: Record<AnyState, StateStyle> = {
  QUEUED: { Icon: HourglassOutlined, color: 'purple', token: 'purple6' },
  WAITING: { Icon: ClockCircleOutlined, color: 'cyan', token: 'cyan6' },
  DISPATCHED: { Icon: SendOutlined, color: 'geekblue', token: 'geekblue6' },
  RUNNING: { Icon: SyncOutlined, color: 'processing', token: 'colorInfo', spin: true },
  SUCCESS: { Icon: CheckCircleOutlined, color: 'success', token: 'colorSuccess' },
  FAILED: { Icon: CloseCircleOutlined, color: 'error', token: 'colorError' },
  TIMEOUT: { Icon: FieldTimeOutlined, color: 'volcano', token: 'volcano6' },
  UPSTREAM_FAILED: { Icon: DisconnectOutlined, color: 'magenta', token: 'magenta6' },
  CANCELLED: { Icon: StopOutlined, color: 'default', token: 'colorTextTertiary' },
  SKIPPED: { Icon: StepForwardOutlined, color: 'gold', token: 'gold6' },
};

const UNKNOWN: StateStyle = { Icon: QuestionCircleOutlined, color: 'default', token: 'colorTextTertiary' };

export function stateStyle(state: string): StateStyle {
  return STYLES[state as AnyState] ?? UNKNOWN;
}
