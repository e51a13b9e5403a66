import { describe, expect, it } from 'vitest';
import { fillPath } from './api-paths.ts';
import { AUTH_API } from './auth-paths.ts';
import { PUBLIC_ACTION_API } from './quarantine.ts';
import { QUARANTINE_ADMIN_API } from './quarantine-admin.ts';

describe('fillPath', () => {
  it('puts each parameter in its place, URL-encoded', () => {
    expect(fillPath('/api/v1/:type/restore/:msg/status', { type: 'o365', msg: 'a/b c?' })).toBe(
      '/api/v1/o365/restore/a%2Fb%20c%3F/status',
    );
  });

  it('refuses a pattern whose parameter has no value', () => {
    expect(() => fillPath('/api/v1/:type/x', {} as { type: string })).toThrow(/:type/);
  });
});

describe('the paths the web calls come from the patterns the API registers', () => {
  it('public actions', () => {
    expect(PUBLIC_ACTION_API.identificationNeeded('office365_emails')).toBe(
      '/api/v1/office365_emails/identification_needed',
    );
    expect(PUBLIC_ACTION_API.entityExists('t', 'm#1')).toBe('/api/v1/t/m%231/entity_exists');
    expect(PUBLIC_ACTION_API.restoreStatus('t', 'm')).toBe('/api/v1/t/restore/m/status');
    expect(PUBLIC_ACTION_API.restoreOriginal('t')).toBe('/api/v1/t/restore_original');
  });

  it('quarantine admin and MFA', () => {
    const id = '0b9b0c9e-3f6e-4a59-9d36-1c2b8a8e2f10';
    expect(QUARANTINE_ADMIN_API.restoreRequestAction(id, 'decline')).toBe(
      `/api/v1/restore_requests/${id}/decline`,
    );
    expect(QUARANTINE_ADMIN_API.messageRelease(id)).toBe(`/api/v1/quarantine/messages/${id}/release`);
    expect(AUTH_API.mfaDisable('a+b@c.test')).toBe('/api/v1/mfa/disable/a%2Bb%40c.test');
  });
});
