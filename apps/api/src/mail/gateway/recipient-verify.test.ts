import net from 'node:net';
import { eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../db/client.ts';
import { inboundMessages } from '../../db/schema.ts';
import { createTenantsRepo } from '../../modules/tenants/tenants.repo.ts';
import { ManualClock } from '../../test/clock.ts';
import { openTestDatabase } from '../../test/database.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { createRecipientVerifier } from './recipient-verify.ts';
import { UNKNOWN_RECIPIENTS_PER_10_MIN } from './smtp-in.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const clock = new ManualClock('2026-11-21T10:00:00Z');
let database: Database;

/**
 * The next hop: a real SMTP server that knows ana@, bo@ … and refuses ghost… with 550 5.1.1,
 * busy… with 451, and relay… with 554 5.7.1 (a smarthost that does not serve the domain).
 * Counts every RCPT per address and every connection opened and closed.
 */
const rcpts = new Map<string, number>();
const seen: { helo: string; mailFrom: string }[] = [];
let opened = 0;
let closed = 0;
const smtpError = (message: string, responseCode: number) =>
  Object.assign(new Error(message), { responseCode });

function startNextHop(secure = false) {
  const server = new SMTPServer({
    secure,
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    onConnect(_session, callback) {
      opened += 1;
      callback();
    },
    onClose() {
      closed += 1;
    },
    onMailFrom(address: SMTPServerAddress, session, callback) {
      seen.push({ helo: session.hostNameAppearsAs, mailFrom: address.address });
      callback();
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      rcpts.set(address.address, (rcpts.get(address.address) ?? 0) + 1);
      const local = address.address.split('@')[0]!;
      if (local.startsWith('ghost')) {
        return callback(smtpError(`5.1.1 <${address.address}>: User unknown in virtual mailbox table`, 550));
      }
      if (local.startsWith('busy')) return callback(smtpError('4.3.0 Mailbox database offline', 451));
      if (local.startsWith('relay')) return callback(smtpError('5.7.1 Relay access denied', 554));
      callback();
    },
  });
  return new Promise<{ server: SMTPServer; port: number }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, port: (server.server.address() as net.AddressInfo).port });
    });
  });
}

let nextHop: Awaited<ReturnType<typeof startNextHop>>;
let tlsNextHop: Awaited<ReturnType<typeof startNextHop>>;
/** Accepts connections and never says a word: the callout must time out and hang up. */
let silent: net.Server;
const silentSockets = { opened: 0, closed: 0 };

/** A verifier on the test database asking the next hop at `relayUrl` (none: no next hop). */
const verifierFor = (relayUrl: string | undefined, timeoutMs?: number) =>
  createRecipientVerifier({
    tenants: createTenantsRepo(database.db),
    clock,
    log: quiet,
    relayUrl,
    heloName: 'mx.moat.test',
    ...(timeoutMs ? { timeoutMs } : {}),
  });

const frontDoors: ReturnType<typeof testSmtpIn>[] = [];
/** The gateway's front door on the test database with a verifier against `relayUrl`. */
async function frontDoor(relayUrl: string | undefined) {
  const verifier = verifierFor(relayUrl);
  const smtp = testSmtpIn({ db: database.db, clock, log: quiet, verifyRecipient: verifier.check });
  frontDoors.push(smtp);
  const port = await smtp.listen(0, '127.0.0.1');
  return (to: string | string[]) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
      .sendMail({ from: 'bob@outside.test', to, subject: 'Hello', text: 'Hi' });
}

let send: Awaited<ReturnType<typeof frontDoor>>;
let sendWithoutRelay: Awaited<ReturnType<typeof frontDoor>>;
const storedCount = async () => (await database.db.select().from(inboundMessages)).length;

beforeAll(async () => {
  database = await openTestDatabase();
  nextHop = await startNextHop();
  tlsNextHop = await startNextHop(true);
  silent = net.createServer((socket) => {
    silentSockets.opened += 1;
    socket.on('close', () => {
      silentSockets.closed += 1;
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));

  await buildTenant(database.db, { domain: 'callout.test', name: 'Callout' });
  await buildTenant(database.db, { domain: 'auto.test', name: 'Auto' });
  const known = await buildTenant(database.db, { domain: 'known.test', name: 'Known' });
  await buildTenant(database.db, { domain: 'off.test', name: 'Off' });
  const other = await buildTenant(database.db, { domain: 'other.test', name: 'Other' });
  const repo = createTenantsRepo(database.db);
  await repo.setRecipientVerification('callout.test', 'callout');
  await repo.setRecipientVerification('known.test', 'known');
  await repo.setRecipientVerification('off.test', 'off');
  await buildUser(database.db, known.id, { email: 'ana@known.test' });
  await buildUser(database.db, known.id, { email: 'carol@known.test', status: 'invited' });
  await buildUser(database.db, known.id, { email: 'bo@known.test', status: 'disabled' });
  // An address of the domain that belongs to another tenant's user is not this tenant's.
  await buildUser(database.db, other.id, { email: 'dan@known.test' });

  send = await frontDoor(`smtp://127.0.0.1:${nextHop.port}`);
  sendWithoutRelay = await frontDoor(undefined);
});

afterAll(async () => {
  await Promise.all(frontDoors.map((door) => door.close()));
  await new Promise<void>((resolve) => nextHop.server.close(() => resolve()));
  await new Promise<void>((resolve) => tlsNextHop.server.close(() => resolve()));
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await database.close();
});

describe('recipient verification at RCPT: callout to the next hop', () => {
  it('refuses an address the next hop does not know with 550 5.1.1 and stores nothing', async () => {
    const before = await storedCount();
    await expect(send('ghost@callout.test')).rejects.toMatchObject({
      responseCode: 550,
      response: '550 5.1.1 <ghost@callout.test>: Recipient address rejected: User unknown',
    });
    expect(await storedCount()).toBe(before);
    expect(rcpts.get('ghost@callout.test')).toBe(1);
    // The callout speaks as the gateway, with the null sender, so the next hop sends no bounce.
    expect(seen.at(-1)).toEqual({ helo: 'mx.moat.test', mailFrom: '' });
  });

  it('answers 421 to an address that guessed too many unknown recipients, and asks the next hop no more', async () => {
    const harvest = await frontDoor(`smtp://127.0.0.1:${nextHop.port}`);
    for (let i = 0; i < UNKNOWN_RECIPIENTS_PER_10_MIN; i++) {
      await expect(harvest(`ghost-guess${i}@callout.test`)).rejects.toMatchObject({ responseCode: 550 });
    }
    const asked = [...rcpts.values()].reduce((a, b) => a + b, 0);
    await expect(harvest('ghost-more@callout.test')).rejects.toMatchObject({ responseCode: 421 });
    // Known addresses wait too, until the window passes: the answer no longer tells them apart.
    await expect(harvest('ana@callout.test')).rejects.toMatchObject({ responseCode: 421 });
    expect([...rcpts.values()].reduce((a, b) => a + b, 0)).toBe(asked);
  });

  it('accepts an address the next hop knows and stores the message for it', async () => {
    const info = await send('ana@callout.test');
    expect(info.response).toMatch(/^250 .*queued as ([0-9a-f-]{36})/);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    const [row] = await database.db.select().from(inboundMessages).where(eq(inboundMessages.id, id));
    expect(row!.rcptTo).toEqual(['ana@callout.test']);
  });

  it('takes the known recipients of a message and refuses only the unknown ones', async () => {
    const info = await send(['bo@callout.test', 'ghost2@callout.test']);
    expect(info.accepted).toEqual(['bo@callout.test']);
    expect(info.rejected).toEqual(['ghost2@callout.test']);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    const [row] = await database.db.select().from(inboundMessages).where(eq(inboundMessages.id, id));
    expect(row!.rcptTo).toEqual(['bo@callout.test']);
  });

  it('remembers an answer: a second message to the same address makes no second callout', async () => {
    await send('cara@callout.test');
    await send('Cara@callout.test');
    expect(rcpts.get('cara@callout.test')).toBe(1);
    await expect(send('ghost3@callout.test')).rejects.toMatchObject({ responseCode: 550 });
    await expect(send('ghost3@callout.test')).rejects.toMatchObject({ responseCode: 550 });
    expect(rcpts.get('ghost3@callout.test')).toBe(1);
  });

  it('asks again once an unknown answer is 10 minutes old and a known one an hour old', async () => {
    await send('dora@callout.test');
    await expect(send('ghost4@callout.test')).rejects.toMatchObject({ responseCode: 550 });
    clock.advance(9 * 60_000);
    await expect(send('ghost4@callout.test')).rejects.toMatchObject({ responseCode: 550 });
    expect(rcpts.get('ghost4@callout.test')).toBe(1);
    clock.advance(2 * 60_000);
    await expect(send('ghost4@callout.test')).rejects.toMatchObject({ responseCode: 550 });
    expect(rcpts.get('ghost4@callout.test')).toBe(2);
    await send('dora@callout.test');
    expect(rcpts.get('dora@callout.test')).toBe(1);
    clock.advance(50 * 60_000);
    await send('dora@callout.test');
    expect(rcpts.get('dora@callout.test')).toBe(2);
  });

  it('answers 450 4.1.1 when the next hop answers 4xx, and asks again next time', async () => {
    const before = await storedCount();
    const refusal = {
      responseCode: 450,
      response:
        '450 4.1.1 <busy@callout.test>: Recipient address verification is temporarily unavailable, try again later',
    };
    await expect(send('busy@callout.test')).rejects.toMatchObject(refusal);
    await expect(send('busy@callout.test')).rejects.toMatchObject(refusal);
    expect(rcpts.get('busy@callout.test')).toBe(2);
    expect(await storedCount()).toBe(before);
  });

  it('accepts when the next hop refuses by policy (5.7.1) rather than judging the mailbox', async () => {
    await expect(send('relay@callout.test')).resolves.toMatchObject({ accepted: ['relay@callout.test'] });
  });

  it("checks an 'auto' domain by callout when a next hop is configured", async () => {
    await expect(send('ghost@auto.test')).rejects.toMatchObject({ responseCode: 550 });
    await send('ana@auto.test');
    expect(rcpts.get('ana@auto.test')).toBe(1);
  });

  it('makes one callout for concurrent checks of the same address', async () => {
    const verifier = verifierFor(`smtp://127.0.0.1:${nextHop.port}`);
    const answers = await Promise.all(Array.from({ length: 5 }, () => verifier.check('eve@callout.test')));
    expect(answers).toEqual(Array(5).fill({ result: 'ok' }));
    expect(rcpts.get('eve@callout.test')).toBe(1);
  });

  it('speaks implicit TLS to an smtps:// next hop', async () => {
    const verifier = verifierFor(`smtps://127.0.0.1:${tlsNextHop.port}?tls.rejectUnauthorized=false`);
    expect(await verifier.check('fay@callout.test')).toEqual({ result: 'ok' });
    expect(await verifier.check('ghost-tls@callout.test')).toMatchObject({
      result: 'unknown',
      detail: expect.stringContaining('550 5.1.1'),
    });
  });

  it('gives up after timeoutMs on a next hop that never answers, and hangs up', async () => {
    const verifier = verifierFor(`smtp://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, 200);
    const started = Date.now();
    expect(await verifier.check('gil@callout.test')).toMatchObject({ result: 'tempfail' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await vi.waitFor(() => expect(silentSockets).toEqual({ opened: 1, closed: 1 }));
  });

  it('is a temporary failure when the next hop cannot be reached', async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const { port } = free.address() as net.AddressInfo;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const verifier = verifierFor(`smtp://127.0.0.1:${port}`);
    expect(await verifier.check('hal@callout.test')).toMatchObject({
      result: 'tempfail',
      detail: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('leaves no connection to the next hop open', async () => {
    await vi.waitFor(() => expect(closed).toBe(opened));
    expect(opened).toBeGreaterThan(0);
  });
});

describe('recipient verification at RCPT: other modes', () => {
  it("'known' accepts the tenant's users who are not disabled, in any case, and refuses the rest", async () => {
    const calls = [...rcpts.values()].reduce((a, b) => a + b, 0);
    await expect(send('ANA@known.test')).resolves.toMatchObject({ accepted: ['ANA@known.test'] });
    await expect(send('carol@known.test')).resolves.toMatchObject({ accepted: ['carol@known.test'] });
    for (const to of ['bo@known.test', 'dan@known.test', 'nobody@known.test']) {
      await expect(send(to)).rejects.toMatchObject({
        responseCode: 550,
        response: `550 5.1.1 <${to}>: Recipient address rejected: User unknown`,
      });
    }
    // The next hop is never asked about a 'known' domain.
    expect([...rcpts.values()].reduce((a, b) => a + b, 0)).toBe(calls);
  });

  it("'off' accepts any address of the domain without asking anyone", async () => {
    await expect(send('whoever@off.test')).resolves.toMatchObject({ accepted: ['whoever@off.test'] });
    expect(rcpts.has('whoever@off.test')).toBe(false);
  });

  it("an 'auto' domain accepts any address when no next hop is configured", async () => {
    await expect(sendWithoutRelay('ghost@auto.test')).resolves.toMatchObject({
      accepted: ['ghost@auto.test'],
    });
  });

  it('still refuses a domain no tenant has with 550 5.7.1 (no open relay)', async () => {
    await expect(send('ana@elsewhere.test')).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.7.1 Relaying denied'),
    });
  });

  it("reads a domain's mode again once the 30 s cache has passed", async () => {
    await expect(send('ghost@off.test')).resolves.toBeTruthy();
    await createTenantsRepo(database.db).setRecipientVerification('off.test', 'known');
    await expect(send('ghost@off.test')).resolves.toBeTruthy();
    clock.advance(31_000);
    await expect(send('ghost@off.test')).rejects.toMatchObject({ responseCode: 550 });
  });
});
