import { describe, expect, it } from 'vitest';
import { firstStartLines } from './first-start.ts';

const seed = {
  adminEmail: 'admin@acme.test',
  generatedPassword: 'Gen3rated-Passw0rd-xxxxxx',
  tenantName: 'acme.test',
};

describe("the first start's box", () => {
  it('names PUBLIC_URL as where the sign-in link comes from, and says emails use it', () => {
    const lines = firstStartLines(seed, { url: 'http://localhost:8080', set: false });
    expect(lines).toContain('Sign in at http://localhost:8080/#/auth/login');
    expect(lines.join('\n')).toMatch(/PUBLIC_URL is not set.*links in emails use it too/);
    expect(lines.join('\n')).toContain('Set PUBLIC_URL to the address people reach Moat at');
    const set = firstStartLines(seed, { url: 'https://moat.acme.test', set: true });
    expect(set).toContain('Sign in at https://moat.acme.test/#/auth/login');
    expect(set).toContain('That address is PUBLIC_URL; the links in the emails Moat sends use it too.');
  });

  it('says the generated password works once; a given one is not shown', () => {
    const lines = firstStartLines(seed, { url: 'http://localhost:8080', set: false });
    expect(lines).toContain(
      'Generated admin password (shown only this once, store it now): Gen3rated-Passw0rd-xxxxxx',
    );
    expect(lines).toContain('It works once: the first sign-in asks you to choose your own password.');
    const given = firstStartLines({ ...seed, generatedPassword: null }, { url: 'http://x.test', set: true });
    expect(given).toContain('The admin password is the one given in ADMIN_PASSWORD.');
    expect(given.join('\n')).not.toContain('Gen3rated');
  });
});
