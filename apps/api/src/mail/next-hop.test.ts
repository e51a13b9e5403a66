import { describe, expect, it } from 'vitest';
import { addressRefusal, checkedRelayUrl, checkNextHop, parseNextHop, whyNotDelivered } from './next-hop.ts';
import type { RelayError } from './relay.ts';

const resolvesTo = (addresses: string[]) => async () => addresses;

describe('a next hop as an admin types it', () => {
  it('takes host, host:port and [v6]:port, and nothing else', () => {
    expect(parseNextHop('Mail.Example.com')).toEqual({ host: 'mail.example.com', port: 25 });
    expect(parseNextHop('exchange01:587')).toEqual({ host: 'exchange01', port: 587 });
    expect(parseNextHop('[2001:db8::1]:2525')).toEqual({ host: '2001:db8::1', port: 2525 });
    for (const bad of ['', 'a b', 'http://x', 'x:0', 'x:70000', '1.2.3', '[nothost]:25', 'x:']) {
      expect(parseNextHop(bad), bad).toBeNull();
    }
  });
});

describe('where a next hop may be', () => {
  it('never at a link-local, unspecified, multicast or reserved address', () => {
    for (const address of ['169.254.169.254', '0.0.0.0', '224.0.0.1', '255.255.255.255', 'fe80::1', '::']) {
      expect(addressRefusal(address, 'any'), address).not.toBeNull();
    }
  });

  it('on a shared deployment (public), only at a public address on a mail port', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.5',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      'fd00::2',
      '::ffff:10.0.0.1',
    ]) {
      expect(addressRefusal(address, 'public'), address).toContain('private or loopback');
      expect(addressRefusal(address, 'any'), address).toBeNull();
    }
    expect(addressRefusal('192.0.2.10', 'public')).toBeNull();
    expect(await checkNextHop({ host: '192.0.2.10', port: 6379 }, 'public')).toEqual({
      refused: 'Port 6379 is not a mail port (25, 465, 587, 2525)',
    });
    expect(await checkNextHop({ host: '192.0.2.10', port: 6379 }, 'any')).toEqual({
      addresses: ['192.0.2.10'],
    });
  });

  it('judges every address a name resolves to, and a name that does not resolve', async () => {
    const mixed = await checkNextHop(
      { host: 'mx.example.com', port: 25 },
      'public',
      resolvesTo(['192.0.2.10', '10.0.0.5']),
    );
    expect(mixed).toEqual({ refused: expect.stringContaining('10.0.0.5') });
    const gone = await checkNextHop({ host: 'mx.example.com', port: 25 }, 'public', async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    });
    expect(gone).toEqual({ refused: 'mx.example.com does not resolve to an address' });
  });

  it('connects to the address checked now, keeping the name for TLS', async () => {
    const url = await checkedRelayUrl(
      'smtp://mx.example.com:25',
      'public',
      { pool: 'false' },
      resolvesTo(['192.0.2.10']),
    );
    const parsed = new URL(url);
    expect(parsed.hostname).toBe('192.0.2.10');
    expect(parsed.searchParams.get('tls.servername')).toBe('mx.example.com');
    expect(parsed.searchParams.get('pool')).toBe('false');
    await expect(
      checkedRelayUrl('smtp://mx.example.com:25', 'public', {}, resolvesTo(['169.254.169.254'])),
    ).rejects.toThrow('link-local');
  });
});

describe("what a mail server's refusal shows", () => {
  it('its SMTP reply, or fixed words: never what a service that is not SMTP sent', () => {
    const smtp = Object.assign(new Error('Can not send: 550 5.1.1 User unknown'), {
      responseCode: 550,
      response: '550 5.1.1 User unknown',
    }) as RelayError;
    expect(whyNotDelivered(smtp)).toBe('550 5.1.1 User unknown');
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:25'), {
      code: 'ESOCKET',
      originalCode: 'ECONNREFUSED',
    }) as RelayError;
    expect(whyNotDelivered(refused)).toBe('ECONNREFUSED: nothing listens on that port');
    const banner = Object.assign(new Error('Invalid greeting. response=SSH-2.0-OpenSSH_8.9p1 bastion'), {
      code: 'EPROTOCOL',
      response: 'SSH-2.0-OpenSSH_8.9p1 bastion',
    }) as RelayError;
    expect(whyNotDelivered(banner)).not.toContain('SSH');
  });
});
