// The desktop app's main process: wires Electron to the shell's modules. One instance per user
// (a second launch focuses the first window); the engine host runs in a utility process under the
// supervisor; the window loads the UI from app://ui and reaches the engine over a MessagePort the
// broker hands it; closing the window keeps the app in the tray; Quit stops the engine cleanly.
import os from 'node:os';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  MessageChannelMain,
  nativeImage,
  Notification,
  powerMonitor,
  protocol,
  safeStorage,
  session,
  shell,
  Tray,
  utilityProcess,
} from 'electron';
import { teamConnectionProblem } from '../engine/api/desktop-bridge.ts';
import { appMenuTemplate } from './app-menu.ts';
import { APP_SCHEME, APP_URL } from './app-origin.ts';
import { appPaths, hostOptionsFrom } from './app-paths.ts';
import { EngineSupervisor } from './engine-supervisor.ts';
import { type DesktopNotice, FailureNotifier } from './failure-notifier.ts';
import { NAVIGATE } from './ipc-channels.ts';
import { registerIpcHandlers } from './ipc-handlers.ts';
import { StartAtLogin } from './login-item.ts';
import { MainEngineClient } from './main-engine-client.ts';
import { hideOnClose, mainWindowOptions, reveal } from './main-window.ts';
import { PortBroker } from './port-broker.ts';
import { choiceOf, QuitFlow, quitQuestion } from './quit-flow.ts';
import { SecretStore } from './secret-store.ts';
import { LocalApiSetting } from './local-api-setting.ts';
import { ShellStateFile } from './shell-state.ts';
import { ShellLanguage } from './shell-texts.ts';
import { TeamMembership } from './team-membership.ts';
import { TrayController } from './tray-controller.ts';
import { type TrayHealth, trayIconBitmap } from './tray-icon.ts';
import { APP_SCHEME_PRIVILEGES, uiProtocolHandler } from './ui-protocol.ts';
import { utilityLauncher } from './utility-launcher.ts';
import { catchUpOnWake } from './wake-catch-up.ts';
import { guardContents, guardSession } from './window-security.ts';

// Before 'ready': the scheme must be known as standard and secure when the first page loads.
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

if (!app.requestSingleInstanceLock()) app.quit();
else runShell();

function runShell(): void {
  const paths = appPaths(__dirname);
  const host = hostOptionsFrom(
    (name) => app.commandLine.getSwitchValue(name),
    (name) => app.commandLine.hasSwitch(name),
    app.getPath('userData'),
  );
  // Decrypted at each start of the host, into its environment only (secret-store.ts).
  const secrets = new SecretStore(safeStorage, app.getPath('userData'), process.platform, host.dataDir);
  const state = new ShellStateFile(app.getPath('userData'));
  const localApi: LocalApiSetting = new LocalApiSetting(state, host.args, (): EngineSupervisor => supervisor);
  const supervisor: EngineSupervisor = new EngineSupervisor({
    launch: utilityLauncher(utilityProcess, {
      entry: paths.engineHost,
      ...host,
      args: (): string[] => localApi.args(),
      env: () => ({ ...process.env, ...secrets.hostEnv() }),
    }),
  });
  const broker = new PortBroker(supervisor, () => new MessageChannelMain());
  const engine = new MainEngineClient(broker);
  const language = new ShellLanguage();
  let window: BrowserWindow | undefined;
  // Held for the app's life: a Tray that is garbage-collected leaves the tray.
  let tray: Tray | undefined;

  const team = new TeamMembership({
    host: supervisor,
    // a server and a worker token, or the database's connection strings (their presence is enough here)
    hasConnection: () => teamConnectionProblem(secrets.status().stored) === undefined,
    state,
  });
  const quitFlow = new QuitFlow({
    // The team worker's tasks count too: Quit drains it with the solo engine (engine-host.ts).
    runningTasks: async () => (await engine.runningTasks()) + (supervisor.teamStatus().running ?? 0),
    ask: async (running) => {
      const question = { type: 'question' as const, ...quitQuestion(running, language.texts()) };
      const answer =
        window && !window.isDestroyed() && window.isVisible()
          ? await dialog.showMessageBox(window, question)
          : await dialog.showMessageBox(question);
      return choiceOf(answer.response);
    },
    stopEngine: (drainMs) => supervisor.stop(drainMs),
    quit: () => app.quit(),
  });
  const open = () => {
    if (window) reveal(window);
  };
  const openPage = (pagePath: string) => {
    if (!window || window.isDestroyed()) return;
    reveal(window);
    window.webContents.send(NAVIGATE, pagePath);
  };
  // Shown notifications are kept until clicked or closed: one collected early loses its click.
  const shownNotices = new Set<Notification>();
  const showNotice = (notice: DesktopNotice) => {
    if (!Notification.isSupported()) return;
    const note = new Notification({ title: notice.title, body: notice.body });
    shownNotices.add(note);
    note.on('click', () => openPage(notice.path));
    note.on('close', () => shownNotices.delete(note));
    note.show();
  };
  const notifier = new FailureNotifier({ notify: showNotice, texts: () => language.texts() });
  // The engine's own alerts (a Redis link lost, a one-time upgrade of the log store): on the
  // shell's stderr, as `ax serve` says them (a starting one is shown in the window too).
  supervisor.onAlert((message) => process.stderr.write(`ax: ${message}\n`));
  // The engine host's `desktop` alert channel; the main client names a failed run's task.
  supervisor.onDesktopAlert((alert) => void notifier.onAlert(engine.current(), alert).catch(() => undefined));

  app.on('before-quit', (event) => quitFlow.onBeforeQuit(event));
  app.on('second-instance', open);
  app.on('activate', open);
  // Closing the window hides it; the app lives on in the tray until Quit.
  app.on('window-all-closed', () => undefined);
  app.on('web-contents-created', (_event, contents) => guardContents(contents, (url) => shell.openExternal(url)));

  registerIpcHandlers(ipcMain, {
    mainContents: () => (window && !window.isDestroyed() ? window.webContents : undefined),
    requestEnginePort: (contents) => broker.request(contents),
    engineStatus: () => supervisor.status(),
    onEngineStatus: (listener) => supervisor.onStatus(listener),
    restartEngine: () => supervisor.restart(),
    setLanguage: (value) => language.set(value),
    secrets: {
      status: () => secrets.status(),
      set: (key, value) => {
        const status = secrets.set(key, value);
        // The running host joins with the new connection next time; a host started later gets it in hostEnv().
        supervisor.process()?.postMessage({ type: 'team-secrets', values: secrets.teamValues() });
        return status;
      },
      setTask: (name, value) => {
        const status = secrets.setTask(name, value);
        // The running host takes the new set at once; a host started later gets it in hostEnv().
        supervisor.process()?.postMessage({ type: 'task-secrets', values: secrets.taskValues() });
        return status;
      },
    },
    localApi: {
      status: () => localApi.status(),
      set: (enabled) => localApi.set(enabled),
    },
    team: {
      status: () => ({ ...team.status(), canJoin: team.canJoin(), wanted: team.wanted() }),
      join: (labels, acceptUnlabelled) => void team.join(labels, acceptUnlabelled),
      leave: () => team.leave(),
      onChange: (listener) => team.onChange(listener),
    },
  });

  void app.whenReady().then(() => {
    guardSession(session.defaultSession);
    const setMenu = () =>
      Menu.setApplicationMenu(
        Menu.buildFromTemplate(
          appMenuTemplate(process.platform, { packaged: app.isPackaged, appName: app.name, texts: language.texts() }),
        ),
      );
    setMenu();
    language.onChange(setMenu);
    protocol.handle(APP_SCHEME, uiProtocolHandler(paths.uiDir));
    supervisor.start();
    catchUpOnWake(powerMonitor, () => engine.current());
    team.followPower(powerMonitor);

    window = new BrowserWindow(mainWindowOptions(paths.preload));
    hideOnClose(window, {
      quitting: () => quitFlow.quitting(),
      hintShown: () => state.get().closeHintShown === true,
      showHint: () => {
        state.update({ closeHintShown: true });
        const texts = language.texts();
        if (Notification.isSupported()) new Notification({ title: texts.hintTitle, body: texts.hintBody }).show();
      },
    });
    const shown = window;
    const startAtLogin = new StartAtLogin(app, process.platform);
    if (!startAtLogin.startsHidden((name) => app.commandLine.hasSwitch(name)))
      shown.once('ready-to-show', () => shown.show());
    void shown.loadURL(APP_URL);

    // 16 points drawn at 32 pixels, sharp on high-density screens too.
    const icon = (health: TrayHealth) =>
      nativeImage.createFromBitmap(trayIconBitmap(health, 32), { width: 32, height: 32, scaleFactor: 2 });
    tray = new Tray(icon('idle'));
    const view = tray;
    view.on('click', open);
    const trayController = new TrayController(
      {
        setHealth: (health) => view.setImage(icon(health)),
        setToolTip: (text) => view.setToolTip(text),
        setMenu: (items) => view.setContextMenu(Menu.buildFromTemplate(items)),
      },
      {
        status: () => supervisor.status(),
        onStatus: (l) => supervisor.onStatus(l),
        onClient: (l) => engine.onClient(l),
        current: () => engine.current(),
      },
      {
        open,
        openPage,
        runWorkflow: (name) =>
          void engine
            .current()
            ?.runWorkflow(name, { actor: 'tray' })
            .catch(() => undefined),
        // The audit log names the person, as `ax pause` does; the state comes back as a `workflows` event.
        setSchedulingPaused: (paused) =>
          void engine
            .current()
            ?.setSchedulingPaused(paused, `${os.userInfo().username}@${os.hostname()} (tray)`)
            .catch(() => undefined),
        restartEngine: () => supervisor.restart(),
        quit: () => app.quit(),
        team: {
          status: () => team.status(),
          canJoin: () => team.canJoin(),
          join: () => void team.join(),
          leave: () => team.leave(),
        },
        ...(startAtLogin.supported && {
          startAtLogin: {
            enabled: () => startAtLogin.enabled(),
            set: (on: boolean) => {
              startAtLogin.set(on);
              trayController.redraw();
            },
          },
        }),
      },
      () => language.texts(),
    );
    language.onChange(() => trayController.redraw());
    team.onChange(() => trayController.redraw());
  });
}
