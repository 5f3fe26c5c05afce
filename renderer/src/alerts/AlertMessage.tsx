// An alert's title and message in the reader's language: built from their codes where the engine
// gave them (reason-text.ts), as the engine wrote them otherwise; failed deliveries beneath.
import { Typography } from 'antd';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import type { AlertRecord } from '../../../engine/api/alerts.ts';
import { useAlertText } from '../shared/reason-text.ts';

export function AlertMessage({ alert }: { alert: AlertRecord }) {
  const { title, message } = useAlertText()(alert);
  return (
    <div style={{ minWidth: 200 }}>
      <Typography.Text strong style={{ wordBreak: 'break-word' }}>
        {showBidiControls(title)}
      </Typography.Text>
      {message && (
        <Typography.Paragraph
          type="secondary"
          ellipsis={{ rows: 2, expandable: true }}
          style={{ margin: '2px 0 0', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
        >
          {showBidiControls(message)}
        </Typography.Paragraph>
      )}
      {alert.deliveries
        .filter((d) => d.state === 'failed' && d.error)
        .map((d) => (
          <Typography.Text
            key={d.channel}
            type="danger"
            style={{ display: 'block', fontSize: 12, wordBreak: 'break-word' }}
          >
            {d.channel}: {d.error}
          </Typography.Text>
        ))}
    </div>
  );
}
