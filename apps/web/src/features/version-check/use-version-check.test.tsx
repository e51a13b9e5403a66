import { VERSION_CHECK_FIRST_DELAY_MS, VERSION_CHECK_INTERVAL_MS } from '@moat/contracts/constants';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, stubApi } from '../../test/render-route';
import { isNewVersion } from './build-id';
import { useVersionCheck } from './use-version-check';

afterEach(() => vi.useRealTimers());

function serving(version: () => string) {
  return stubApi({
    'GET /api/v1/version': () =>
      jsonResponse(200, { version_info: { ui2_version: version(), flask_version: '1.0.0' } }),
  });
}

function renderCheck(running: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return renderHook(() => useVersionCheck(running), { wrapper });
}

const versionCalls = (api: ReturnType<typeof stubApi>) =>
  api.calls.filter((call) => call.url.pathname === '/api/v1/version').length;

describe('version check (SPEC §4)', () => {
  it('asks first after 5 s, then every 5 minutes, and reports the new build once served', async () => {
    vi.useFakeTimers();
    let served = 'build-a';
    const api = serving(() => served);
    const { result } = renderCheck('build-a');

    await act(() => vi.advanceTimersByTimeAsync(VERSION_CHECK_FIRST_DELAY_MS - 1));
    expect(versionCalls(api)).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(versionCalls(api)).toBe(1);
    expect(result.current).toBe(false);

    served = 'build-b';
    await act(() => vi.advanceTimersByTimeAsync(VERSION_CHECK_INTERVAL_MS - 1));
    expect(versionCalls(api)).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(versionCalls(api)).toBe(2);
    expect(result.current).toBe(true);

    // Found: no more checks.
    await act(() => vi.advanceTimersByTimeAsync(3 * VERSION_CHECK_INTERVAL_MS));
    expect(versionCalls(api)).toBe(2);
  });

  it('keeps checking after a failed call', async () => {
    vi.useFakeTimers();
    const api = stubApi();
    const { result } = renderCheck('build-a');
    await act(() => vi.advanceTimersByTimeAsync(VERSION_CHECK_FIRST_DELAY_MS + VERSION_CHECK_INTERVAL_MS));
    expect(versionCalls(api)).toBe(2);
    expect(result.current).toBe(false);
  });

  it.each([
    ['build-b', 'build-a', true],
    ['build-a', 'build-a', false],
    ['dev', 'build-a', false],
    ['unknown', 'build-a', false],
    ['build-b', 'dev', false],
  ])('served %s while running %s is new: %s', (served, running, expected) => {
    expect(isNewVersion(served, running)).toBe(expected);
  });
});
