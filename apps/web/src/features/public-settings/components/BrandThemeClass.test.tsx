import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { errorResponse, jsonResponse, PUBLIC_FEATURES, stubApi } from '../../../test/render-route';
import { BrandThemeClass } from './BrandThemeClass';

function renderWithFeatures(answer: () => Response) {
  const api = stubApi({ 'GET /api/v1/generic/ui_features_public': answer });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={queryClient}>
      <BrandThemeClass />
    </QueryClientProvider>,
  );
  return api;
}

describe('BrandThemeClass', () => {
  it('puts checkpoint-theme on the body when the public settings ask for it', async () => {
    const api = renderWithFeatures(() => jsonResponse(200, { ...PUBLIC_FEATURES, checkpointTheme: true }));
    await waitFor(() => expect(document.body).toHaveClass('checkpoint-theme'));
    expect(document.body).not.toHaveClass('sonicwall-theme');
    expect(api.calls[0]?.url.pathname).toBe('/api/v1/generic/ui_features_public');
  });

  it('puts sonicwall-theme on the body for the sonicwall brand', async () => {
    renderWithFeatures(() => jsonResponse(200, { ...PUBLIC_FEATURES, sonicwallTheme: true }));
    await waitFor(() => expect(document.body).toHaveClass('sonicwall-theme'));
    expect(document.body).not.toHaveClass('checkpoint-theme');
  });

  it('removes a brand class the settings no longer ask for, and adds none when they fail', async () => {
    document.body.classList.add('checkpoint-theme');
    const api = renderWithFeatures(() => jsonResponse(200, PUBLIC_FEATURES));
    await waitFor(() => expect(api.calls).toHaveLength(1));
    await waitFor(() => expect(document.body).not.toHaveClass('checkpoint-theme'));

    document.body.className = '';
    const failing = renderWithFeatures(() => errorResponse(500, 'internal_error', 'boom'));
    await waitFor(() => expect(failing.calls).toHaveLength(1));
    expect(document.body.className).toBe('');
  });
});
