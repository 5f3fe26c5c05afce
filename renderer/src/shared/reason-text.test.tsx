// @vitest-environment jsdom
// Engine-written text in the reader's language: a reason and an alert built by the engine's own
// builders (engine/api/reasons.ts) read in Chinese once the UI is in zh-CN, with their raw
// arguments formatted here; a reason with no code, or a code the UI does not know, stays English.
import '../test-support/dom-shims.ts';
import '../i18n/index.ts';
import { cleanup, render, screen } from '@testing-library/react';
import i18n from 'i18next';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertRecord } from '../../../engine/api/alerts.ts';
import { alertText, because, reasonLine } from '../../../engine/api/reasons.ts';
import { AlertMessage } from '../alerts/AlertMessage.tsx';
import { type HasReason, useReasonText } from './reason-text.ts';

function Reason({ record }: { record: HasReason }) {
  return <span data-testid="reason">{useReasonText()(record)}</span>;
}

const exit = because('exit', { code: 3 });
const timeout = because('timeout', { timeout: 5_400_000 });

function failedAlert(): AlertRecord {
  return {
    id: 1,
    key: 'k',
    rule: 'task_failed',
    subject: 'workflow:etl',
    workflow: 'etl',
    severity: 'critical',
    at: 0,
    node: 'n',
    kind: 'immediate',
    state: 'unsent',
    deliveries: [],
    ...alertText({ code: 'alert_task_timed_out', args: { workflow: 'etl', task: 'load', attempt: 2 } }, [
      { code: 'alert_run_instance', args: { run: 7, instance: 12 } },
      reasonLine(timeout.reason, timeout.reasonCode),
      { code: 'alert_worker', args: { worker: 'w1' } },
    ]),
  };
}

describe('engine text in the reader language', () => {
  beforeEach(() => i18n.changeLanguage('en'));
  // Unmount first (no vitest globals, so no automatic cleanup): a language change with the
  // components still mounted schedules a render that ran after jsdom was gone.
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('a reason reads in Chinese, its duration formatted in Chinese; without a code it stays as the engine wrote it', async () => {
    const { rerender } = render(<Reason record={exit} />);
    expect(screen.getByTestId('reason').textContent).toBe('exit code 3');
    await i18n.changeLanguage('zh-CN');
    rerender(<Reason record={exit} />);
    expect(screen.getByTestId('reason').textContent).toBe('退出码 3');
    rerender(<Reason record={timeout} />);
    expect(screen.getByTestId('reason').textContent).toBe('运行超过 1 小时 30 分，已超时');
    rerender(<Reason record={{ reason: 'stopped: the engine shut down' }} />);
    expect(screen.getByTestId('reason').textContent).toBe('stopped: the engine shut down');
    rerender(<Reason record={{ reason: 'from a newer engine', reasonCode: { code: 'not_known_here' } }} />);
    expect(screen.getByTestId('reason').textContent).toBe('from a newer engine');
  });

  it('an alert: title and each body line in Chinese, the quoted reason translated too', async () => {
    const alert = failedAlert();
    expect(alert.message).toBe('run #7, instance 12\nreason: timed out after 1h30m\nworker: w1');
    const { container, rerender } = render(<AlertMessage alert={alert} />);
    expect(container.textContent).toContain('etl: task "load" timed out (attempt 2, no retry left)');
    // the UI formats raw durations its own way, in English too (the CLI writes "1h30m")
    expect(container.textContent).toContain('reason: timed out after 1 h 30 min');
    await i18n.changeLanguage('zh-CN');
    rerender(<AlertMessage alert={{ ...alert }} />);
    expect(container.textContent).toContain('etl：任务“load”超时（第 2 次尝试，已无重试）');
    expect(container.textContent).toContain('运行 #7，实例 12');
    expect(container.textContent).toContain('原因：运行超过 1 小时 30 分，已超时');
    expect(container.textContent).toContain('执行节点：w1');
    // an alert of an older engine (no codes) shows its English
    rerender(<AlertMessage alert={{ ...alert, titleCode: undefined, messageCodes: undefined }} />);
    expect(container.textContent).toContain('etl: task "load" timed out');
  });

  it('a clock step and a skipped task read in Chinese, their lists and output kept as the engine wrote them', async () => {
    const alert: AlertRecord = {
      ...failedAlert(),
      rule: 'clock_step',
      ...alertText({ code: 'alert_clock_step', args: { node: 'n1', back: 3_600_000, count: 12 } }, [
        { code: 'alert_clock_step_body_more', args: { at: 0, schedules: 'a, b', more: 10 } },
      ]),
    };
    const skipped = because('when_exited_output', { code: 1, output: 'no new rows' });
    await i18n.changeLanguage('zh-CN');
    const { container } = render(<AlertMessage alert={alert} />);
    expect(container.textContent).toContain('n1 的时钟回拨了约 1 小时：已从现在起重新规划 12 个调度');
    expect(container.textContent).toContain('已重新规划：a, b 以及另外 10 个。');
    const reason = render(<Reason record={skipped} />).container;
    expect(reason.textContent).toBe('when: 命令以退出码 1 结束：no new rows');
  });
});
