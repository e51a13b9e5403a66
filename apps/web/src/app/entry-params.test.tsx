import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { isDebugMode } from '../lib/debug-mode';
import { renderRoute, stubApi } from '../test/render-route';

const b64 = (path: string) => btoa(encodeURIComponent(path));

describe('entry parameters of the hash route (SPEC §2.3)', () => {
  it('switches troubleshooting mode on with ?debug=1 and off with ?debug=0', async () => {
    stubApi();
    const app = renderRoute('/auth/forgot-password?debug=1');
    await waitFor(() => expect(isDebugMode()).toBe(true));
    await app.router.navigate('/auth/login?debug=0');
    expect(isDebugMode()).toBe(false);
  });

  it('follows a route parameter to the path it names, replacing the entry', async () => {
    stubApi();
    const app = renderRoute(`/?route=${b64('/#/auth/forgot-password')}`);
    await waitFor(() => expect(app.location()).toBe('/auth/forgot-password'));
    expect(app.router.state.historyAction).toBe('REPLACE');
  });

  it('ignores a route parameter pointing outside the app', async () => {
    stubApi();
    const app = renderRoute(`/auth/login?route=${b64('https://evil.example/')}`);
    await waitFor(() => expect(app.location()).toBe('/auth/login'));
  });
});
