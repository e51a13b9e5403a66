import { CONSOLE_API, type SearchGroup, searchResultPath } from '@moat/contracts/console';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releases, restoreRequests, securityEvents } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildMailLogEntry, buildQuarantinedMessage, buildSession, buildUser } from '../../test/factories.ts';

const DAY = 86_400_000;
let t: Awaited<ReturnType<typeof buildTestApp>>;
let me: Awaited<ReturnType<typeof signedInAs>>;

beforeAll(async () => {
  t = await buildTestApp();
  me = await signedInAs(t.app, t.db, { apps: ['office365_emails', 'google_mail'] });
  const tenantId = me.tenant.id;
  await buildQuarantinedMessage(t.db, tenantId, {
    subject: 'Overdue invoice 4471',
    saasType: 'office365_emails',
  });
  await buildQuarantinedMessage(t.db, tenantId, {
    subject: 'Your INVOICE is ready',
    saasType: 'google_mail',
  });
  await buildQuarantinedMessage(t.db, tenantId, {
    subject: 'Old invoice',
    receivedAt: new Date(Date.now() - 60 * DAY),
  });
  await buildQuarantinedMessage(t.db, tenantId, { subject: 'Discount 100% off', verdict: 'spam' });
  await buildQuarantinedMessage(t.db, tenantId, { subject: 'Teams invoice', saasType: 'teams' });
  await buildUser(t.db, tenantId, { email: 'invoice.clerk@acme.test', firstName: 'Ivy', lastName: 'Clerk' });
  await buildUser(t.db, tenantId, { email: 'invoice.support@provider.test', hidden: true });
  const other = await signedInAs(t.app, t.db, { apps: ['office365_emails'] });
  await buildQuarantinedMessage(t.db, other.tenant.id, { subject: 'Other tenant invoice' });
});
afterAll(() => t.close());

const search = async (query: string) => {
  const res = await me.get(`${CONSOLE_API.search}?nosystem=1&${query}`);
  expect(res.statusCode).toBe(200);
  return res.json() as SearchGroup[];
};
const names = (groups: SearchGroup[]) =>
  groups.flatMap((g) => g.results.map((r) => `${g.app_name}/${r.type}/${r.name}`));

describe('GET /api/v1/search', () => {
  it("finds the tenant's messages by a piece of the subject, any case, grouped by app", async () => {
    const groups = await search('keyword=invoice');
    expect(groups.map((g) => g.app_name)).toEqual(['office365_emails', 'google_mail', 'portal']);
    const found = names(groups);
    expect(found).toContain('office365_emails/email/Overdue invoice 4471');
    expect(found).toContain('google_mail/email/Your INVOICE is ready');
    expect(found).toContain('office365_emails/event/phishing: Overdue invoice 4471');
    expect(found).toContain('portal/user/Ivy Clerk');
    const email = groups[0]!.results.find((r) => r.type === 'email')!;
    expect(email).toMatchObject({ entity_type: 'message', mime: 'message/rfc822' });
  });

  it("never shows another tenant's data, hidden users, apps not active, or messages outside the date range", async () => {
    const found = names(await search('keyword=invoice'));
    expect(found.join()).not.toContain('Other tenant');
    expect(found.join()).not.toContain('invoice.support');
    expect(found.join()).not.toContain('Teams invoice');
    expect(found.join()).not.toContain('Old invoice');
    expect(names(await search('keyword=invoice&date_range=year')).join()).toContain('Old invoice');
    expect(names(await search('keyword=invoice&date_range=day')).join()).not.toContain('Old invoice');
  });

  it('finds events only inside the date range, by their own words or by their message', async () => {
    const tenantId = me.tenant.id;
    // An engine event without a message, 10 days old, and one created yesterday.
    await t.db.insert(securityEvents).values([
      {
        tenantId,
        engine: 'sandbox',
        verdict: 'malware',
        description: 'Quokka dropper seen',
        severity: 'high',
        createdAt: new Date(Date.now() - 10 * DAY),
      },
      {
        tenantId,
        engine: 'sandbox',
        verdict: 'malware',
        description: 'Quokka beacon seen',
        severity: 'high',
        createdAt: new Date(Date.now() - DAY / 2),
      },
    ]);
    // A message (and its event) held 10 days ago, found by its subject.
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Quokka shipment notice',
      receivedAt: new Date(Date.now() - 10 * DAY),
    });
    const all = async (query: string) => {
      const res = await me.get(`${CONSOLE_API.search}?${query}`);
      expect(res.statusCode).toBe(200);
      return names(res.json() as SearchGroup[]);
    };

    const week = await all('keyword=quokka&date_range=week');
    expect(week).toEqual(['system/event/malware: Quokka beacon seen']);
    const month = await all('keyword=quokka&date_range=month');
    expect(month).toEqual(
      expect.arrayContaining([
        'office365_emails/email/Quokka shipment notice',
        'office365_emails/event/phishing: Quokka shipment notice',
        'system/event/malware: Quokka dropper seen',
        'system/event/malware: Quokka beacon seen',
      ]),
    );
    expect(month).toHaveLength(4);
    // nosystem=1 leaves the events without a message out.
    expect(await all('nosystem=1&keyword=quokka&date_range=week')).toEqual([]);
  });

  it("finds a recent event by its message's words only when the message is in the range too", async () => {
    const tenantId = me.tenant.id;
    const old = await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Wombat delivery',
      receivedAt: new Date(Date.now() - 10 * DAY),
      event: false,
    });
    await t.db.insert(securityEvents).values({
      tenantId,
      messageId: old.id,
      engine: 'recipient',
      verdict: 'phishing',
      description: 'Numbat reported the message as safe',
      severity: 'info',
      createdAt: new Date(Date.now() - DAY / 2),
    });
    const week = async (keyword: string) =>
      names((await me.get(`${CONSOLE_API.search}?nosystem=1&date_range=week&keyword=${keyword}`)).json());
    expect(await week('wombat')).toEqual([]);
    expect(await week('numbat')).toEqual(['office365_emails/event/phishing: Wombat delivery']);
    expect(
      names((await me.get(`${CONSOLE_API.search}?nosystem=1&date_range=month&keyword=wombat`)).json()),
    ).toEqual(['office365_emails/email/Wombat delivery', 'office365_emails/event/phishing: Wombat delivery']);
  });

  it('finds mail by a piece of the sender address, any case, inside the date range', async () => {
    const tenantId = me.tenant.id;
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Walrus statement',
      sender: 'Billing-Desk7@Vendor.test',
    });
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Walrus reminder',
      sender: 'ap.billing-desk7@vendor.test',
      saasType: 'google_mail',
      event: false,
    });
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Walrus archive',
      sender: 'billing-desk7@vendor.test',
      receivedAt: new Date(Date.now() - 60 * DAY),
      event: false,
    });
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Walrus desk 77',
      sender: 'billing-desk77@vendor.test',
    });
    await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Walrus dask',
      sender: 'billing-dask7@vendor.test',
    });
    await t.db.insert(securityEvents).values({
      tenantId,
      engine: 'edge',
      verdict: 'spam',
      description: 'Rate limited BILLING-DESK7@vendor.test',
      severity: 'low',
      createdAt: new Date(Date.now() - DAY),
    });
    const all = async (query: string) => names((await me.get(`${CONSOLE_API.search}?${query}`)).json());
    expect(await all('keyword=billing-desk7@')).toEqual([
      'office365_emails/email/Walrus statement',
      'office365_emails/event/phishing: Walrus statement',
      'google_mail/email/Walrus reminder',
      'system/event/spam: Rate limited BILLING-DESK7@vendor.test',
    ]);
    expect(await all('keyword=Billing-Desk7@vendor&date_range=year&nosystem=1')).toEqual([
      'office365_emails/email/Walrus statement',
      'office365_emails/email/Walrus archive',
      'office365_emails/event/phishing: Walrus statement',
      'google_mail/email/Walrus reminder',
    ]);
  });

  it('limits each category and keeps to the apps asked for', async () => {
    const groups = await search('keyword=invoice&saas=google_mail&category_limit=1');
    expect(groups.map((g) => g.app_name)).toEqual(['google_mail', 'portal']);
    expect(groups[0]!.results.filter((r) => r.type === 'email')).toHaveLength(1);
  });

  it('takes LIKE wildcards literally and answers nothing for an empty keyword', async () => {
    expect(names(await search('keyword=100%25'))).toEqual(
      expect.arrayContaining(['office365_emails/email/Discount 100% off']),
    );
    expect(names(await search(`keyword=${encodeURIComponent('%')}`)).join()).not.toContain('invoice');
    expect(names(await search('keyword=inv_ice')).length).toBe(0);
    expect(await search('keyword=%20%20')).toEqual([]);
    expect(containsPattern('a%b_c\\')).toBe('%a\\%b\\_c\\\\%');
  });

  it('finds policy rules by their words', async () => {
    const groups = await search('keyword=restore policy: phish');
    expect(names(groups)).toEqual(['portal/rule/Restore policy: phishing']);
    expect(groups[0]!.results[0]).toMatchObject({ entity_id: 'phishing', entity_type: 'rule' });
  });

  it('refuses bad parameters with 400 and answers 403 without a session', async () => {
    expect((await me.get(`${CONSOLE_API.search}?keyword=a&date_range=decade`)).statusCode).toBe(400);
    expect((await me.get(`${CONSOLE_API.search}?keyword=a&category_limit=0`)).statusCode).toBe(400);
    expect((await me.get(`${CONSOLE_API.search}?keyword=${'a'.repeat(201)}`)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `${CONSOLE_API.search}?keyword=a` })).statusCode).toBe(
      403,
    );
  });
});

describe('GET /api/v1/dashboard/overview', () => {
  it('counts held messages, pending requests, releases and the mail of 30 days by verdict', async () => {
    const fresh = await signedInAs(t.app, t.db);
    const empty = (await fresh.get(CONSOLE_API.overview)).json();
    expect(empty).toMatchObject({ quarantined: 0, pending_requests: 0, restored_30d: 0, recent_events: [] });
    const a = await buildQuarantinedMessage(t.db, fresh.tenant.id, {
      subject: 'A',
      verdict: 'malware',
      receivedAt: new Date(Date.now() - 2 * DAY),
    });
    const b = await buildQuarantinedMessage(t.db, fresh.tenant.id, {
      subject: 'B',
      state: 'restored',
      receivedAt: new Date(Date.now() - DAY),
    });
    await buildQuarantinedMessage(t.db, fresh.tenant.id, {
      subject: 'C',
      receivedAt: new Date(Date.now() - 40 * DAY),
    });
    await t.db.insert(restoreRequests).values({
      tenantId: fresh.tenant.id,
      messageId: a.id,
      kind: 'email',
      requestedBy: a.recipient,
      mode: 'request',
      status: 'requested',
    });
    await t.db.insert(releases).values({ messageId: b.id, kind: 'email', releasedBy: 'admin' });
    await buildMailLogEntry(t.db, fresh.tenant.id, { verdict: 'malware', action: 'quarantined' });
    await buildMailLogEntry(t.db, fresh.tenant.id, { verdict: 'spam', action: 'delivered_banner' });
    await buildMailLogEntry(t.db, fresh.tenant.id, { receivedAt: new Date(Date.now() - 40 * DAY) });
    const overview = (await fresh.get(CONSOLE_API.overview)).json();
    expect(overview).toMatchObject({
      quarantined: 2,
      pending_requests: 1,
      restored_30d: 1,
      mail_30d: {
        messages: 2,
        not_clean: 2,
        verdict: { clean: 0, malware: 1, phishing: 0, spam: 1, suspicious: 0 },
        held: 1,
        delivered_banner: 1,
      },
    });
    expect(overview.recent_events.map((e: { subject: string }) => e.subject)).toEqual(['B', 'A', 'C']);
  });
});

describe('what a plain user finds and counts', () => {
  it('only mail sent to them, and no list of people', async () => {
    const user = await signedInAs(t.app, t.db, {
      apps: ['office365_emails'],
      user: { role: 'user', email: 'ivy@plain.test' },
    });
    await buildQuarantinedMessage(t.db, user.tenant.id, {
      subject: 'Salary review',
      recipient: 'ceo@plain.test',
    });
    await buildQuarantinedMessage(t.db, user.tenant.id, {
      subject: 'Salary slip',
      recipient: 'ivy@plain.test',
      sender: 'payroll-office@plain.test',
    });
    await buildQuarantinedMessage(t.db, user.tenant.id, {
      subject: 'Salary bands',
      recipient: 'ceo@plain.test',
      sender: 'payroll-office@plain.test',
    });
    await buildUser(t.db, user.tenant.id, {
      email: 'salary.clerk@plain.test',
      firstName: 'Sal',
      lastName: 'Clerk',
    });
    const found = (await user.get(`${CONSOLE_API.search}?keyword=salary`)).json() as SearchGroup[];
    const all = found.flatMap((g) => g.results.map((r) => r.name));
    expect(all).toContain('Salary slip');
    expect(all).not.toContain('Salary review');
    expect(found.map((g) => g.app_name)).not.toContain('portal');
    // By a piece of the sender's address too (the address keys of migration 0014).
    const bySender = (
      await user.get(`${CONSOLE_API.search}?keyword=payroll-office@`)
    ).json() as SearchGroup[];
    expect(bySender.flatMap((g) => g.results.map((r) => r.name))).toEqual([
      'Salary slip',
      'phishing: Salary slip',
    ]);
    const overview = (await user.get(CONSOLE_API.overview)).json();
    expect(overview.quarantined).toBe(1);
    expect(overview.recent_events.map((e: { subject: string }) => e.subject)).toEqual(['Salary slip']);
  });
});

describe('mail the gateway delivered', () => {
  it('is found by an admin (once, opening its trace), not by a plain user, and a held one only as held', async () => {
    const admin = await signedInAs(t.app, t.db, { apps: ['smtp_emails'] });
    const tenantId = admin.tenant.id;
    const domain = admin.tenant.domain;
    const delivered = await buildMailLogEntry(t.db, tenantId, {
      subject: 'Quarterly numbers',
      recipient: `pat@${domain}`,
      action: 'delivered',
      verdict: 'clean',
    });
    const held = await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Quarterly numbers (fake)',
      saasType: 'smtp_emails',
    });
    await buildMailLogEntry(t.db, tenantId, {
      subject: 'Quarterly numbers (fake)',
      action: 'quarantined',
      quarantineMessageId: held.id,
    });
    await buildMailLogEntry(t.db, tenantId, {
      subject: 'Quarterly numbers of last year',
      receivedAt: new Date(Date.now() - 60 * DAY),
    });
    const groups = (
      await admin.get(`${CONSOLE_API.search}?nosystem=1&keyword=quarterly`)
    ).json() as SearchGroup[];
    const emails = groups.flatMap((g) => g.results.filter((r) => r.type === 'email'));
    expect(emails.map((r) => r.name).sort()).toEqual(['Quarterly numbers', 'Quarterly numbers (fake)']);
    const found = emails.find((r) => r.name === 'Quarterly numbers')!;
    expect(found).toMatchObject({ entity_type: 'mail_log', entity_id: delivered.id });
    expect(searchResultPath(found)).toBe(`/mail-explorer/message/${delivered.id}`);

    const plain = await buildUser(t.db, tenantId, { email: `pat@${domain}` });
    const { token } = await buildSession(t.db, plain);
    const asPlain = await t.app.inject({
      method: 'GET',
      url: `${CONSOLE_API.search}?nosystem=1&keyword=quarterly`,
      cookies: { [SESSION_COOKIE]: token },
    });
    const theirs = (asPlain.json() as SearchGroup[]).flatMap((g) => g.results.map((r) => r.entity_type));
    expect(theirs).not.toContain('mail_log');
  });
});
