// A run or instance state as a tag (icon + words) or, where space is short, an icon whose name is
// in its tooltip and its accessible label.
import { Tag, Tooltip, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { stateStyle } from './state-style.tsx';

export function useStateLabel(): (state: string) => string {
  const { t } = useTranslation('common');
  return (state) => t(`state.${state}`, { defaultValue: state });
}

export function StateTag({ state }: { state: string }) {
  const label = useStateLabel();
  const style = stateStyle(state);
  return (
    <Tag
      color={style.color}
      icon={<style.Icon spin={style.spin} aria-hidden />}
      data-state={state}
      style={{ marginInlineEnd: 0 }}
    >
      {label(state)}
    </Tag>
  );
}

export function StateIcon({ state, size = 16, tooltip }: { state: string; size?: number; tooltip?: string }) {
  const label = useStateLabel();
  const { token } = theme.useToken();
  const style = stateStyle(state);
  const text = tooltip ?? label(state);
  return (
    <Tooltip title={text}>
      <span role="img" aria-label={text} data-state={state} style={{ display: 'inline-flex', lineHeight: 1 }}>
        <style.Icon spin={style.spin} aria-hidden style={{ fontSize: size, color: token[style.token] as string }} />
      </span>
    </Tooltip>
  );
}
