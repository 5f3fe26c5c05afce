// What jsdom lacks and the UI's libraries need, imported first by every component test (not a
// vitest setupFiles entry: the Node-side tests share the config and must not get a fake DOM).
// - matchMedia: antd's responsive grid and the theme's "system" mode ask it;
// - ResizeObserver: antd's textarea and React Flow watch sizes with it;
// - element sizes: jsdom lays nothing out, so every box is 0×0 and a virtualised list (the log
//   viewer) would show no rows. Elements here are one fixed size, like a window of 1024×768.
import { configure } from '@testing-library/react';

// findBy* and waitFor give up after 1 s by default: one slow render on a loaded 2-core CI (a
// select's options, a toast after an engine round trip) failed tests whose page was only late,
// not wrong. A find that succeeds returns at once; this only bounds how long a failing one waits.
configure({ asyncUtilTimeout: 15_000 });

const VIEW = { width: 1024, height: 768 };

if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

if (!globalThis.ResizeObserver) {
  globalThis.ResizeObserver = class {
    constructor(private readonly callback: ResizeObserverCallback) {}
    observe(target: Element) {
      const rect = target.getBoundingClientRect();
      const entry = {
        target,
        contentRect: rect,
        borderBoxSize: [{ inlineSize: rect.width, blockSize: rect.height }],
        contentBoxSize: [{ inlineSize: rect.width, blockSize: rect.height }],
      };
      queueMicrotask(() => this.callback([entry as unknown as ResizeObserverEntry], this as unknown as ResizeObserver));
    }
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}

for (const [name, value] of [
  ['offsetWidth', VIEW.width],
  ['offsetHeight', VIEW.height],
  ['clientWidth', VIEW.width],
  ['clientHeight', VIEW.height],
] as const) {
  Object.defineProperty(HTMLElement.prototype, name, { configurable: true, get: () => value });
}
HTMLElement.prototype.getBoundingClientRect = function () {
  return {
    x: 0,
    y: 0,
    top: 0,
    left: 0,
    right: VIEW.width,
    bottom: VIEW.height,
    width: VIEW.width,
    height: VIEW.height,
    toJSON: () => ({}),
  } as DOMRect;
};
// scrollTo / scrollIntoView are called by the log viewer and antd; jsdom has no layout to scroll
Element.prototype.scrollTo ??= function (this: Element, options?: ScrollToOptions | number) {
  if (typeof options === 'object' && options.top !== undefined) this.scrollTop = options.top;
} as Element['scrollTo'];
Element.prototype.scrollIntoView ??= () => undefined;
// jsdom computes no pseudo-element styles and says so on every antd modal (scrollbar measuring)
const computedStyle = window.getComputedStyle.bind(window);
window.getComputedStyle = (element: Element) => computedStyle(element);
// React Flow reads the zoom of a node's transform from a DOMMatrixReadOnly, which jsdom lacks:
// an unscaled matrix (the canvas at zoom 1) is all a test's canvas needs
if (!('DOMMatrixReadOnly' in window)) {
  Object.defineProperty(window, 'DOMMatrixReadOnly', {
    configurable: true,
    value: class {
      readonly m22 = 1;
      readonly a = 1;
      readonly d = 1;
      readonly e = 0;
      readonly f = 0;
    },
  });
}
