import type { Customization } from '@moat/contracts/customization';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const STATE: Customization = {
  has_custom_logo: false,
  logo_mime: null,
  default_application_mode: 'mixed',
  can_change_logo: true,
  can_change_application_mode: true,
};

describe('Customization (/system-settings/customization)', () => {
  it('uploads a logo as base64, says a refused SVG inline, and sets the default theme', async () => {
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: () => 'blob:logo', revokeObjectURL: () => {} }),
    );
    const user = userEvent.setup();
    let stored = STATE;
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/customization': () => jsonResponse(200, stored),
      'PUT /api/v1/customization/logo': (call) => {
        const body = call.body as { mime: string; data: string };
        if (body.mime === 'image/svg+xml') {
          return errorResponse(400, 'validation_error', 'This SVG holds a script, which a logo may not');
        }
        stored = { ...stored, has_custom_logo: true, logo_mime: 'image/png' };
        return jsonResponse(200, stored);
      },
      'PUT /api/v1/customization': (call) => {
        stored = { ...stored, ...(call.body as object) };
        return jsonResponse(200, stored);
      },
    });
    renderRoute('/system-settings/customization');
    await screen.findByLabelText('Logo file');
    // Mantine's FileInput is a button over a hidden file input: the file goes to the input.
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File(['<svg><script/></svg>'], 'evil.svg', { type: 'image/svg+xml' }));
    await user.click(screen.getByRole('button', { name: 'Upload logo' }));
    expect(await screen.findByText('This SVG holds a script, which a logo may not')).toBeInTheDocument();
    await user.upload(
      input,
      new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'logo.png', { type: 'image/png' }),
    );
    await user.click(screen.getByRole('button', { name: 'Upload logo' }));
    expect(await screen.findByText('Your logo is in use now.')).toBeInTheDocument();
    const uploads = api.calls
      .filter((c) => c.url.pathname === '/api/v1/customization/logo')
      .map((c) => c.body);
    expect(uploads.at(-1)).toEqual({ mime: 'image/png', data: 'iVBORw==' });
    expect(screen.getByRole('button', { name: 'Restore the default logo' })).toBeEnabled();

    await user.click(screen.getByRole('radio', { name: 'Dark' }));
    await vi.waitFor(() =>
      expect(api.calls.some((c) => c.method === 'PUT' && c.url.pathname === '/api/v1/customization')).toBe(
        true,
      ),
    );
  }, 30_000);

  it('tells a plain user only an admin changes it', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      'GET /api/v1/customization': () => jsonResponse(200, STATE),
    });
    renderRoute('/system-settings/customization');
    expect(
      await screen.findByText('Only an admin can change the logo and the default theme.'),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Logo file')).not.toBeInTheDocument();
  });
});
