// What an attempt ran: its command, working directory and the variables AX set for it (secret
// values come masked from the engine). Long values wrap; the environment is a dense two-column
// list a newcomer can scan for AX_LOGICAL_TIME or a param, scrolling past a dozen variables.
import { Card, Descriptions, theme, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { InstanceLaunch as Launch } from '../../../engine/api/types.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 12.5 };

export function InstanceLaunch({ launch }: { launch: Launch | undefined }) {
  const { t } = useTranslation('logs');
  const { token } = theme.useToken();
  if (!launch)
    return (
      <Card size="small" title={t('launch.title')} data-testid="instance-launch">
        <Typography.Text type="secondary">{t('launch.none')}</Typography.Text>
      </Card>
    );
  const env = Object.entries(launch.env).map(([name, value]) => ({ name, value }));
  return (
    <Card size="small" title={t('launch.title')} data-testid="instance-launch">
      <Descriptions
        size="small"
        column={1}
        items={[
          {
            key: 'command',
            label: t('launch.command'),
            children: (
              <Typography.Paragraph
                copyable={{ text: launch.command }}
                className="ax-launch-command"
                style={{ ...mono, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', margin: 0 }}
                data-testid="launch-command"
              >
                {showBidiControls(launch.command)}
              </Typography.Paragraph>
            ),
          },
          {
            key: 'cwd',
            label: t('launch.cwd'),
            children:
              launch.cwd !== undefined ? (
                <Typography.Text style={{ ...mono, overflowWrap: 'anywhere' }} data-testid="launch-cwd">
                  {showBidiControls(launch.cwd)}
                </Typography.Text>
              ) : (
                <Typography.Text type="secondary">{t('launch.cwdDefault')}</Typography.Text>
              ),
          },
        ]}
      />
      <Typography.Text strong style={{ display: 'block', margin: '8px 0 2px' }}>
        {t('launch.env')} · {t('launch.envCount', { count: env.length })}
      </Typography.Text>
      <Typography.Text type="secondary" style={{ display: 'block', marginBottom: 6, fontSize: 12 }}>
        {t('launch.envHint')}
      </Typography.Text>
      <div
        className="ax-launch-env"
        role="table"
        aria-label={t('launch.env')}
        data-testid="launch-env"
        style={{ borderColor: token.colorBorderSecondary }}
      >
        {env.map(({ name, value }) => (
          <div key={name} role="row" className="ax-launch-env-row" style={{ borderColor: token.colorSplit }}>
            <span role="cell" className="ax-launch-env-name" style={{ color: token.colorTextSecondary }}>
              {name}
            </span>
            <span role="cell" className="ax-launch-env-value">
              {showBidiControls(value)}
            </span>
          </div>
        ))}
      </div>
    </Card>
  );
}
