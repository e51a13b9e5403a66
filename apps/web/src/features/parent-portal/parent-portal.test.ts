import { USER_ACTIVE_MESSAGE_INTERVAL_MS } from '@moat/contracts/constants';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAllowedParentOrigin, startParentPortalReporter } from './parent-portal';

const PORTAL = 'https://portal.checkpoint.com';

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
}

function receive(origin: string, data: unknown = { action: 'hello' }) {
  window.dispatchEvent(new MessageEvent('message', { origin, data }));
}

describe('parent portal message (SPEC §4)', () => {
  let stop: () => void = () => {};
  beforeEach(() => {
    vi.useFakeTimers();
    setVisibility('visible');
  });
  afterEach(() => {
    stop();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  function embedded(onMessage = vi.fn()) {
    const parent = { postMessage: vi.fn() };
    stop = startParentPortalReporter({ win: window, parent, onMessage });
    return { parent, onMessage };
  }

  it('posts user-active to the portal every 60 s in which the user had input', () => {
    const { parent } = embedded();
    receive(PORTAL);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS);
    expect(parent.postMessage).toHaveBeenCalledTimes(1);
    expect(parent.postMessage).toHaveBeenCalledWith(
      { source: 'email_collaboration', action: 'user-active' },
      PORTAL,
    );

    // No input during the next minute: nothing is sent.
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS + 1);
    expect(parent.postMessage).toHaveBeenCalledTimes(1);

    window.dispatchEvent(new MouseEvent('pointerdown'));
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS);
    expect(parent.postMessage).toHaveBeenCalledTimes(2);
  });

  it('sends nothing while the page is hidden', () => {
    const { parent } = embedded();
    receive(PORTAL);
    setVisibility('hidden');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS);
    expect(parent.postMessage).not.toHaveBeenCalled();
  });

  it('sends nothing when not embedded', () => {
    const postMessage = vi.spyOn(window, 'postMessage');
    stop = startParentPortalReporter({ win: window, parent: window });
    receive(PORTAL);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS);
    expect(postMessage).not.toHaveBeenCalled();
  });

  it('accepts messages only from the allowed portal domains and logs the others', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { onMessage, parent } = embedded();
    receive('https://evil.example');
    receive('https://checkpoint.com.evil.example');
    expect(onMessage).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(2);

    // Without a trusted portal origin, nothing is sent even to an active user.
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    vi.advanceTimersByTime(USER_ACTIVE_MESSAGE_INTERVAL_MS);
    expect(parent.postMessage).not.toHaveBeenCalled();

    receive('https://app.avanan.com');
    expect(onMessage).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['https://checkpoint.com', true],
    ['https://portal.checkpoint.com', true],
    ['https://eu.app.avanan.com:8443', true],
    ['http://portal.checkpoint.com', false],
    ['https://evilcheckpoint.com', false],
    ['https://checkpoint.com.evil.example', false],
    ['null', false],
    ['', false],
  ])('judges %s as allowed: %s', (origin, allowed) => {
    expect(isAllowedParentOrigin(origin)).toBe(allowed);
  });
});
