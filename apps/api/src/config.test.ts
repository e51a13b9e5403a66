import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.smtpPort).toBe(2525);
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.dataDir.endsWith('/data')).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.captcha).toEqual({ provider: 'altcha', siteKey: null, secretKey: null, difficulty: 1500 });
  });

  it('rejects PORT=abc with one line naming the variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(
      /^Invalid configuration: PORT must be a whole number .*"abc"/,
    );
  });

  it.each([
    ['PORT', '70000'],
    ['SMTP_PORT', '-1'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['DATABASE_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://x'],
    ['SMTP_RELAY_URL', 'http://relay'],
    ['ADMIN_EMAIL', 'not-an-email'],
    ['ADMIN_PASSWORD', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['CAPTCHA_DIFFICULTY', '0'],
    ['SECRET_KEY', 'tooshort'],
    ['MAINTENANCE_DOMAINS', 'ok.com, not a domain'],
    ['MAIL_FROM', 'nobody'],
    ['TRUST_PROXY', 'sometimes'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_TOKEN', 'has a space in the middle'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });

  it('reads the maintenance domains, and secure cookies from an https PUBLIC_URL', () => {
    const config = loadConfig({
      MAINTENANCE_DOMAINS: 'Provider.com, parent.com',
      PUBLIC_URL: 'https://m.example.com',
    });
    expect(config.maintenanceDomains).toEqual(['provider.com', 'parent.com']);
    expect(config.secureCookies).toBe(true);
    expect(config.mailFrom).toBe('no-reply@m.example.com');
    expect(loadConfig({}).secureCookies).toBe(false);
  });

  it('takes PUBLIC_URL without a trailing slash and lowercases ADMIN_EMAIL', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://moat.example.com/', ADMIN_EMAIL: 'Admin@Example.COM' });
    expect(config.publicUrl).toBe('https://moat.example.com');
    expect(config.adminEmail).toBe('admin@example.com');
  });

  it('prefers reCAPTCHA, then Turnstile, over the self-hosted ALTCHA', () => {
    expect(
      loadConfig({ RECAPTCHA_SITE_KEY: 'r', RECAPTCHA_SECRET_KEY: 'rs', TURNSTILE_SITE_KEY: 't' }).captcha,
    ).toMatchObject({ provider: 'recaptcha', siteKey: 'r', secretKey: 'rs' });
    expect(loadConfig({ TURNSTILE_SITE_KEY: 't', TURNSTILE_SECRET_KEY: 'ts' }).captcha).toMatchObject({
      provider: 'turnstile',
      siteKey: 't',
    });
    expect(() => loadConfig({ TURNSTILE_SITE_KEY: 't' })).toThrow(
      /^Invalid configuration: TURNSTILE_SECRET_KEY /,
    );
  });

  it('reads METRICS_TOKEN; without it /metrics is for loopback callers only', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'prometheus-0123456789' }).metricsToken).toBe('prometheus-0123456789');
  });
});
