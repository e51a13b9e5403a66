import { describe, expect, it } from 'vitest';
import { createOutboundRoutes, type MxResolver } from './outbound-routes.ts';

const resolver = (
  mx: Record<string, Array<{ priority: number; exchange: string }>>,
  a: Record<string, string[]>,
): MxResolver => ({
  resolveMx: async (domain) => {
    if (mx[domain]) return mx[domain]!;
    throw Object.assign(new Error('no such domain'), { code: 'ENOTFOUND' });
  },
  resolve4: async (host) => a[host] ?? [],
  resolve6: async () => [],
});

describe('outbound delivery by MX', () => {
  it('never connects to a private, loopback or link-local MX address on a public deployment', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.10', '169.254.169.254']) {
      const routes = createOutboundRoutes({
        relayUrl: undefined,
        resolver: resolver(
          { 'inside.example': [{ priority: 10, exchange: 'mx.inside.example' }] },
          { 'mx.inside.example': [address] },
        ),
        mxPort: 25,
        heloName: 'mx.moat.test',
        networks: 'public',
      });
      const failed = await routes
        .send({ from: 'ana@acme.test', to: ['bo@inside.example'] }, Buffer.from('Subject: x\r\n\r\nx\r\n'))
        .then(
          () => null,
          (error: { responseCode?: number; message: string }) => error,
        );
      routes.close();
      expect(failed?.responseCode).toBe(550);
      expect(failed?.message).toContain('has no address this server delivers to');
    }
  });

  it('bounces at once for a domain that does not exist or takes no mail', async () => {
    const routes = createOutboundRoutes({
      relayUrl: undefined,
      resolver: resolver({ 'nomail.example': [{ priority: 0, exchange: '.' }] }, {}),
      mxPort: 25,
      heloName: 'mx.moat.test',
    });
    const send = (to: string) =>
      routes.send({ from: 'ana@acme.test', to: [to] }, Buffer.from('x')).then(
        () => null,
        (error: { responseCode?: number; message: string }) => error,
      );
    expect(await send('x@nomail.example')).toMatchObject({ responseCode: 556 });
    expect(await send('x@missing.example')).toMatchObject({ responseCode: 550 });
    routes.close();
  });
});
