// @vitest-environment jsdom
// A list row's last run: when it started and how long it took, or how long it has run so far;
// never "in 9 s" or "took 0 ms" for a monitor's missed report, stamped with its deadline.
import '../test-support/dom-shims.ts';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import '../i18n/index.ts';
import { LastRun } from './LastRun.tsx';

const now = Date.UTC(2026, 11, 2, 12, 0);
const when = () => screen.getByTestId('last-run-when').textContent;

function show(run: Parameters<typeof LastRun>[0]['run']) {
  render(
    <MemoryRouter>
      <LastRun run={run} now={now} />
    </MemoryRouter>,
  );
}

describe('LastRun', () => {
  afterEach(cleanup);

  it('says when a finished run started and how long it took', () => {
    const startedAt = now - 3 * 3_600_000;
    show({ id: 7, state: 'SUCCESS', logicalTime: startedAt, startedAt, finishedAt: startedAt + 4 * 60_000 });
    expect(when()).toBe('3 h ago · took 4 min');
    expect(screen.getByRole('link', { name: 'Last run: run #7' })).toBeTruthy();
  });

  it('says how long a running run has run so far', () => {
    show({ id: 8, state: 'RUNNING', logicalTime: now - 90_000, startedAt: now - 90_000 });
    expect(when()).toBe('1 min 30 s ago · running for 1 min 30 s');
  });

  it('says neither "in …" nor "took 0 ms" for a run stamped a moment ahead that never ran', () => {
    show({ id: 9, state: 'FAILED', logicalTime: now - 300_000, startedAt: now + 9_000, finishedAt: now + 9_000 });
    expect(when()).not.toMatch(/in |took/);
  });
});
