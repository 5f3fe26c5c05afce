// Renders real components against a real engine (SQLite in a temp dir) in one process: the
// engine's API served by serveConnection, the UI's EngineConnection over memoryTransport, and
// the providers the app puts around a page (antd, theme, query cache, router, i18n).
import { StyleProvider } from '@ant-design/cssinjs';
import { render, type RenderResult } from '@testing-library/react';
import { App as AntApp, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import type { EngineApi } from '../../../engine/api/engine-api.ts';
import type { ConnectionIdentity } from '../../../engine/server/api-dispatch.ts';
import type { startTestEngine, TestEngine } from '../../../test/helpers/solo-engine.ts';
import { ThemeContext } from '../app/theme-context.ts';
import { ApiProvider, createQueryClient, EngineConnection } from '../engine-client/index.ts';
import '../i18n/index.ts';
import { memoryTransport } from './memory-transport.ts';

export interface EngineUi {
  engine: TestEngine;
  connection: EngineConnection;
  /** the page under test; `path` matches the route `route` (e.g. "/designer/:name") */
  render(ui: ReactNode, options?: { path?: string; route?: string }): RenderResult;
  close(): Promise<void>;
}

/**
 * The engine's modules, loaded once. Under jsdom, Vite transforms every module for the browser,
 * which rewrites `new URL('./file', import.meta.url)` into `new URL('/path/file', '' +
 * self.location)`: a web address, which the engine's module-level file lookups (the task
 * launcher's script) cannot turn into a path. While they load, `self.location` is a file URL, so
 * they load; tasks are then run by the engine's direct spawner (NodeProcessRunner), which needs
 * no launcher script. Nothing else of the engine differs from `ax serve`'s.
 */
let engineModules:
  | Promise<{
      startTestEngine: typeof startTestEngine;
      NodeProcessRunner: typeof import('../../../engine/adapters/process/node-process-runner.ts').NodeProcessRunner;
    }>
  | undefined;
function loadEngine() {
  engineModules ??= (async () => {
    const page = globalThis.self;
    Object.defineProperty(globalThis, 'self', { configurable: true, writable: true, value: { location: 'file:///' } });
    try {
      const [helpers, runner] = await Promise.all([
        import('../../../test/helpers/solo-engine.ts'),
        import('../../../engine/adapters/process/node-process-runner.ts'),
      ]);
      return { startTestEngine: helpers.startTestEngine, NodeProcessRunner: runner.NodeProcessRunner };
    } finally {
      Object.defineProperty(globalThis, 'self', { configurable: true, writable: true, value: page });
    }
  })();
  return engineModules;
}

/**
 * Where antd writes its generated stylesheets: an element outside the document. jsdom computes
 * styles by matching every rule of every sheet in the document, and antd's ~1,800 rules made one
 * getComputedStyle cost about half a second on a busy core; Testing Library calls it for every
 * element a role query looks at and userEvent for every ancestor of what it clicks (the designer's
 * page test took minutes). jsdom lays nothing out, so those rules changed no finding here: the
 * elements, their roles, names and inline styles are the same without them.
 */
let sink: HTMLElement | undefined;
function styleSink(): HTMLElement {
  sink ??= document.createElement('div');
  return sink;
}

/**
 * antd's click ripple renders into a React root of its own and unmounts it when its animation
 * ends, outside the page's root and outside act(): a ripple still pending when a file ended ran
 * after jsdom was gone ("window is not defined" in CI, from the workflows list's Delete). It
 * draws nothing a test looks at.
 */
export const WAVE_OFF = { disabled: true } as const;

export interface EngineUiOptions {
  /** what the connection serves instead of the engine itself (people-engine.ts: with accounts) */
  api?: (engine: TestEngine) => EngineApi;
  /** who the server side takes the UI for (team mode: the signed-in person) */
  identity?: ConnectionIdentity;
}

export async function startEngineUi(
  options: Parameters<typeof startTestEngine>[0] & EngineUiOptions = {},
): Promise<EngineUi> {
  const { startTestEngine, NodeProcessRunner } = await loadEngine();
  const { api, identity, ...engineOptions } = options;
  const engine = await startTestEngine({ runner: new NodeProcessRunner(), ...engineOptions });
  const served = api ? api(engine) : engine.engine;
  const connection = new EngineConnection({
    connect: async () => memoryTransport(served, identity),
    checkSession: async () => true,
  });
  connection.start();
  let view: RenderResult | undefined;
  return {
    engine,
    connection,
    render(ui, { path = '/', route = '*' } = {}) {
      const queryClient = createQueryClient();
      view = render(
        <StyleProvider container={styleSink()}>
          <ConfigProvider wave={WAVE_OFF}>
            <ThemeContext.Provider value={{ choice: 'light', dark: false, setChoice: () => undefined }}>
              <AntApp>
                <ApiProvider connection={connection} queryClient={queryClient}>
                  <MemoryRouter initialEntries={[path]}>
                    <Routes>
                      <Route path={route} element={ui} />
                    </Routes>
                  </MemoryRouter>
                </ApiProvider>
              </AntApp>
            </ThemeContext.Provider>
          </ConfigProvider>
        </StyleProvider>,
      );
      return view;
    },
    async close() {
      view?.unmount();
      connection.stop();
      await engine.close();
    },
  };
}
