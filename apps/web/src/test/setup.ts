import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { loadAreaTexts } from '../lib/i18n';

// findBy/waitFor wait up to 5 s (not 1 s): lazy route chunks and the shell's queries take longer
// on a busy shared machine. Nothing asserts a duration; this is only how long to keep looking.
configure({ asyncUtilTimeout: 5_000 });

// In the app, the areas' words come with their routes (lib/i18n.ts); a component rendered alone
// needs them at once.
await loadAreaTexts();

// The ALTCHA widget needs Web Workers and a secure context; tests use a fake solver.
vi.mock('../features/auth/captcha/altcha-solver', () => import('./fake-captcha'));

// jsdom lacks what Mantine and the router's scroll restoration use.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub;

// jsdom's default style gives <wbr> (Breakable's wrap points) no display, and an accessible name
// then gets a space at each one ("bob@ acme .test"); a browser shows and reads it inline.
const inlineWbr = document.createElement('style');
inlineWbr.textContent = 'wbr { display: inline; }';
document.head.append(inlineWbr);
window.scrollTo = () => {};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
  document.body.className = '';
});
