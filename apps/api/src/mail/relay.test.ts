import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, type RelayError } from './relay.ts';

/** A next hop that records what arrives and how many connections it saw (and has open). */
async function nextHop(extra: Partial<SMTPServerOptions> = {}) {
  const received: Array<{ from: string; to: string[]; body: string }> = [];
  let connections = 0;
  let open = 0;
  let mostOpen = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      callback();
    },
    onClose() {
      open -= 1;
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('nobody@')) {
        return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          body: Buffer.concat(chunks).toString(),
        });
        callback();
      });
    },
    ...extra,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  const hop = {
    port,
    received,
    connections: () => connections,
    mostOpen: () => mostOpen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  hops.push(hop);
  return hop;
}
const hops: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(hops.splice(0).map((h) => h.close()));
});

const message = (i: number) =>
  Buffer.from(`Subject: Relay ${i}\r\n\r\n.line starting with a dot\r\nBody ${i}\r\n`);

describe('the relay', () => {
  it('sends on at most its connections, reusing them, each message once and its bytes as given', async () => {
    const hop = await nextHop();
    const relay = createRelay(`smtp://127.0.0.1:${hop.port}?maxConnections=2`);
    try {
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          relay.send({ from: 'bob@outside.test', to: [`u${i}@acme.test`] }, message(i)),
        ),
      );
      expect(hop.received).toHaveLength(12);
      expect(new Set(hop.received.map((r) => r.to[0])).size).toBe(12);
      expect(hop.received[0]!.from).toBe('bob@outside.test');
      // Dot-stuffing is the SMTP layer's: the message arrives as it was given.
      const first = hop.received.find((r) => r.to[0] === 'u0@acme.test')!;
      expect(first.body).toBe(message(0).toString());
      expect(hop.mostOpen()).toBeLessThanOrEqual(2);
      expect(hop.connections()).toBeLessThanOrEqual(2);
    } finally {
      relay.close();
    }
  });

  it('answers a refusal with its reply code, keeps the connection, and sends a bounce from <>', async () => {
    const hop = await nextHop();
    const relay = createRelay(`smtp://127.0.0.1:${hop.port}?maxConnections=1`);
    try {
      await relay.send({ from: 'bob@outside.test', to: ['a@acme.test'] }, message(1));
      const refused = await relay
        .send({ from: 'bob@outside.test', to: ['nobody@acme.test'] }, message(2))
        .catch((error: RelayError) => error);
      expect((refused as RelayError).responseCode).toBe(550);
      await relay.send({ from: '', to: ['bob@outside.test'] }, message(3));
      expect(hop.received.map((r) => r.to[0])).toEqual(['a@acme.test', 'bob@outside.test']);
      expect(hop.received[1]!.from).toBe('');
      expect(hop.connections()).toBe(1);
    } finally {
      relay.close();
    }
  });

  it('goes on after the next hop dropped an idle connection, and opens one per message with pool=false', async () => {
    const hop = await nextHop({ socketTimeout: 300 });
    const relay = createRelay(`smtp://127.0.0.1:${hop.port}?maxConnections=1`);
    try {
      await relay.send({ from: 'bob@outside.test', to: ['a@acme.test'] }, message(1));
      await new Promise((r) => setTimeout(r, 700));
      await relay.send({ from: 'bob@outside.test', to: ['b@acme.test'] }, message(2));
      expect(hop.received).toHaveLength(2);
      expect(hop.connections()).toBe(2);
    } finally {
      relay.close();
    }
    const single = await nextHop();
    const unpooled = createRelay(`smtp://127.0.0.1:${single.port}?pool=false`);
    try {
      for (let i = 0; i < 3; i++)
        await unpooled.send({ from: 'bob@outside.test', to: ['a@acme.test'] }, message(i));
      expect(single.connections()).toBe(3);
    } finally {
      unpooled.close();
    }
  });

  it('signs in with the user and password of the URL; a wrong password is refused with 535', async () => {
    const hop = await nextHop({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'moat' && auth.password === 's3cret') return callback(null, { user: 'moat' });
        callback(Object.assign(new Error('5.7.8 Authentication failed'), { responseCode: 535 }));
      },
    });
    const relay = createRelay(`smtp://moat:s3cret@127.0.0.1:${hop.port}?maxConnections=1`);
    const wrong = createRelay(`smtp://moat:nope@127.0.0.1:${hop.port}?maxConnections=1`);
    try {
      await relay.send({ from: 'bob@outside.test', to: ['a@acme.test'] }, message(1));
      expect(hop.received).toHaveLength(1);
      const refused = await wrong
        .send({ from: 'bob@outside.test', to: ['a@acme.test'] }, message(2))
        .catch((error: RelayError) => error);
      expect((refused as RelayError).responseCode).toBe(535);
      expect(hop.received).toHaveLength(1);
    } finally {
      relay.close();
      wrong.close();
    }
  });

  it('on close, lets the message under way finish whole and refuses those still waiting for a connection', async () => {
    const hop = await nextHop();
    const relay = createRelay(`smtp://127.0.0.1:${hop.port}?maxConnections=1`);
    const big = Buffer.from(`Subject: Big\r\n\r\n${'A line of a long message.\r\n'.repeat(40_000)}`);
    // The connection is open: the big message is under way at once.
    await relay.send({ from: 'bob@outside.test', to: ['first@acme.test'] }, message(1));
    const underWay = relay.send({ from: 'bob@outside.test', to: ['a@acme.test'] }, big);
    const queued = relay.send({ from: 'bob@outside.test', to: ['b@acme.test'] }, message(2));
    queued.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    relay.close();
    await underWay;
    await expect(queued).rejects.toMatchObject({ code: 'ECONNECTION' });
    expect(hop.received.map((r) => r.to[0])).toEqual(['first@acme.test', 'a@acme.test']);
    expect(hop.received[1]!.body).toBe(big.toString());
    expect(relay.size()).toBe(0);
  });
});
