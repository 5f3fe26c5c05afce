// @vitest-environment jsdom
// The global keyboard layer: "g" then "w" / "r" / "d" go to their pages, "/" focuses the header's
// search, "?" lists the shortcuts; nothing happens while typing in a field or on the designer;
// j / k move one cursor through the page's tables (across from one to the next) and Enter opens.
import '../test-support/dom-shims.ts';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { App as AntApp, Table } from 'antd';
import { MemoryRouter, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import '../i18n/index.ts';
import { GlobalKeyReader, SEQUENCE_MS } from './global-keys.ts';
import { GlobalKeys } from './GlobalKeys.tsx';
import { CURSOR_CLASS, useRowKeys } from './use-row-keys.ts';

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>;
}

function Rows({ names, prefix }: { names: string[]; prefix: string }) {
  const navigate = useNavigate();
  const rows = names.map((name) => ({ name }));
  const keys = useRowKeys(rows, (r) => navigate(`${prefix}/${r.name}`));
  return (
    <div ref={keys.ref}>
      <Table rowKey="name" dataSource={rows} columns={[{ key: 'n', dataIndex: 'name' }]} {...keys.tableProps} />
    </div>
  );
}

function renderApp(path = '/') {
  return render(
    <AntApp>
      <MemoryRouter initialEntries={[path]}>
        <GlobalKeys />
        <div role="search">
          <input aria-label="search" />
        </div>
        <input aria-label="other field" />
        <Where />
        <Routes>
          <Route
            path="/"
            element={
              <>
                <Rows names={['r1', 'r2']} prefix="/runs" />
                <Rows names={['f1']} prefix="/instances" />
              </>
            }
          />
          <Route path="*" element={null} />
        </Routes>
      </MemoryRouter>
    </AntApp>,
  );
}

const press = (key: string, target: Element = document.body) => act(() => void fireEvent.keyDown(target, { key }));
const where = () => screen.getByTestId('where').textContent;
const cursorRows = () => [...document.querySelectorAll(`tr.${CURSOR_CLASS}`)].map((tr) => tr.textContent);

describe('global keys', () => {
  afterEach(cleanup);

  it('goes to the workflows, runs and dashboard with "g" then a letter', () => {
    renderApp();
    press('g');
    press('w');
    expect(where()).toBe('/workflows');
    press('g');
    press('r');
    expect(where()).toBe('/runs');
    press('g');
    press('d');
    expect(where()).toBe('/');
  });

  it('needs the "g" first: "w" alone, or "g", another key, "w" go nowhere', () => {
    renderApp();
    press('w');
    press('g');
    press('x');
    press('w');
    expect(where()).toBe('/');
  });

  it('ignores keys typed into a field', () => {
    renderApp();
    const field = screen.getByLabelText('other field');
    press('g', field);
    press('w', field);
    press('/', field);
    expect(where()).toBe('/');
    expect(document.activeElement).not.toBe(screen.getByLabelText('search'));
    press('g');
    press('r');
    expect(where()).toBe('/runs');
    press('g');
    press('d');
    press('g');
    press('w');
    expect(where()).toBe('/workflows');
  });

  it('focuses the search with "/" and lists the shortcuts with "?"', async () => {
    renderApp();
    press('/');
    expect(document.activeElement).toBe(screen.getByLabelText('search'));
    press('?', document.body);
    expect(await screen.findByTestId('global-shortcuts')).toBeTruthy();
    expect(screen.getByText('Go to the workflows')).toBeTruthy();
  });

  it('moves one cursor through the tables with j / k and opens the row with Enter', () => {
    renderApp();
    press('j');
    expect(cursorRows()).toEqual(['r1']);
    press('j');
    press('j'); // past the first table's last row: the next table's first
    expect(cursorRows()).toEqual(['f1']);
    press('j'); // the last row stays
    press('k');
    expect(cursorRows()).toEqual(['r2']);
    press('Enter');
    expect(where()).toBe('/runs/r2');
  });
});

describe('GlobalKeyReader', () => {
  const key = (k: string, timeStamp: number, extra: Partial<KeyboardEventInit> = {}) => ({
    key: k,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    target: document.body,
    timeStamp,
    ...extra,
  });

  it('drops a "g" that waited too long, and leaves Ctrl / Cmd combinations alone', () => {
    const reader = new GlobalKeyReader();
    reader.read(key('g', 0), '/');
    expect(reader.read(key('w', SEQUENCE_MS + 1), '/')).toBeUndefined();
    reader.read(key('g', 10_000), '/');
    expect(reader.read(key('w', 10_100), '/')).toEqual({ type: 'go', to: '/workflows' });
    expect(reader.read(key('k', 0, { ctrlKey: true }), '/')).toBeUndefined();
    expect(reader.read(key('/', 0, { metaKey: true }), '/')).toBeUndefined();
  });

  it('is off on the designer’s routes, which have their own shortcuts', () => {
    const reader = new GlobalKeyReader();
    expect(reader.read(key('?', 0), '/designer/etl')).toBeUndefined();
    expect(reader.read(key('j', 0), '/designer/new')).toBeUndefined();
    expect(reader.read(key('?', 0), '/designs')).toEqual({ type: 'help' });
  });
});
