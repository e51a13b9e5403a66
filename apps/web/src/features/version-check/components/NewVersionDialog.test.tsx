import { QueryClient } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { AppProviders } from '../../../app/AppProviders';
import { NewVersionDialog } from './NewVersionDialog';

describe('NewVersionDialog', () => {
  it('cannot be closed and reloads the page on Reload', async () => {
    const user = userEvent.setup();
    const onReload = vi.fn();
    render(
      <AppProviders queryClient={new QueryClient()}>
        <NewVersionDialog opened onReload={onReload} />
      </AppProviders>,
    );
    const dialog = await screen.findByRole('dialog', { name: 'A new version is available' });
    await user.keyboard('{Escape}');
    expect(dialog).toBeInTheDocument();
    expect(screen.getAllByRole('button')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    expect(onReload).toHaveBeenCalledTimes(1);
  });
});
