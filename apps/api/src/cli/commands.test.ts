import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verify } from '@node-rs/argon2';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { auditLog, featureFlags, outbox, saasApps, tenantDomains, tenants, users } from '../db/schema.ts';
import { systemClock } from '../lib/clock.ts';
import { createGatewayPolicyRepo } from '../mail/gateway/gateway-policy.repo.ts';
import { senderKeys, senderListFrom } from '../mail/gateway/policy.ts';
import { createMailer } from '../mail/outbound.ts';
import { createOutboxRepo } from '../mail/outbox.repo.ts';
import { openTestDatabase } from '../test/database.ts';
import { buildTenant } from '../test/factories.ts';
import { runCommand } from './commands.ts';

let database: Database;
const run = (...argv: string[]) =>
  runCommand(argv, {
    db: database.db,
    config: { publicUrl: 'https://moat.test' },
    clock: systemClock,
    cwd: os.tmpdir(),
  });

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('cli tenant:create', () => {
  it('creates a tenant with its domains, lowercased, and writes the audit log', async () => {
    const res = await run(
      'tenant:create',
      '--name',
      'Acme',
      '--domain',
      'Acme.TEST',
      '--domain',
      'acme2.test',
    );
    expect(res).toMatchObject({ exitCode: 0, stderr: '' });
    expect(res.stdout).toMatch(
      /Created tenant "Acme" \(id [0-9a-f-]{36}\) with domain\(s\) acme\.test, acme2\.test/,
    );
    const domains = await database.db.select().from(tenantDomains);
    expect(domains.map((d) => d.domain).sort()).toEqual(['acme.test', 'acme2.test']);
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, 'tenant.create'));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'cli', targetType: 'tenant' });
  });

  it('refuses a domain that already belongs to a tenant and changes nothing', async () => {
    const before = await database.db.select().from(tenants);
    const res = await run(
      'tenant:create',
      '--name',
      'Other',
      '--domain',
      'new.test',
      '--domain',
      'acme.test',
    );
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toBe('Error: The domain acme.test already belongs to a tenant\n');
    expect(await database.db.select().from(tenants)).toHaveLength(before.length);
    expect(
      await database.db.select().from(tenantDomains).where(eq(tenantDomains.domain, 'new.test')),
    ).toHaveLength(0);
  });

  it.each([
    [['--name', 'X', '--domain', 'not_a_domain'], 1, /not a valid mail domain/],
    [['--name', 'X'], 2, /--domain is required/],
    [['--domain', 'x.test'], 2, /--name is required/],
    [
      ['--name', 'X', '--domain', 'x.test', '--brand', 'acme'],
      2,
      /--brand must be one of: moat, checkpoint, sonicwall/,
    ],
    [['--name', 'X', '--domain', 'x.test', '--mode', 'free'], 2, /--mode must be one of: poc, paid, demo/],
    [['--name', 'X', '--domain', 'x.test', '--colour', 'red'], 2, /Unknown option '--colour'/],
  ])('refuses %j with exit code %i and a clear message', async (args, code, message) => {
    const res = await run('tenant:create', ...args);
    expect(res.exitCode).toBe(code);
    expect(res.stderr).toMatch(message);
    expect(
      await database.db.select().from(tenantDomains).where(eq(tenantDomains.domain, 'x.test')),
    ).toHaveLength(0);
  });
});

describe('cli tenant:domain-add', () => {
  it('adds a domain to a tenant named by one of its domains', async () => {
    const res = await run('tenant:domain-add', '--tenant', 'acme.test', '--domain', 'acme3.test');
    expect(res.exitCode).toBe(0);
    const [row] = await database.db
      .select()
      .from(tenantDomains)
      .where(eq(tenantDomains.domain, 'acme3.test'));
    expect(row).toBeDefined();
  });

  it('answers a clear error for an unknown tenant', async () => {
    const res = await run('tenant:domain-add', '--tenant', 'nobody.test', '--domain', 'x.test');
    expect(res).toMatchObject({
      exitCode: 1,
      stderr: 'Error: No tenant has the id or domain "nobody.test"\n',
    });
  });
});

describe('cli tenant:domain-verify', () => {
  it("sets how the gateway checks a domain's recipients and writes the audit log", async () => {
    await buildTenant(database.db, { domain: 'verify.test' });
    const res = await run('tenant:domain-verify', '--domain', 'VERIFY.test', '--mode', 'known');
    expect(res).toMatchObject({ exitCode: 0, stderr: '' });
    expect(res.stdout).toMatch(/^Recipient verification of verify\.test: known \(/);
    const [row] = await database.db
      .select()
      .from(tenantDomains)
      .where(eq(tenantDomains.domain, 'verify.test'));
    expect(row!.recipientVerification).toBe('known');
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'tenant.recipient_verification_set'));
    expect(audit.at(-1)).toMatchObject({
      actorType: 'cli',
      tenantId: row!.tenantId,
      details: { domain: 'verify.test', mode: 'known' },
    });
  });

  it('refuses a mode it does not know, naming the allowed ones, and changes nothing', async () => {
    await buildTenant(database.db, { domain: 'verify2.test' });
    const res = await run('tenant:domain-verify', '--domain', 'verify2.test', '--mode', 'strict');
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('--mode must be one of: auto, callout, known, off (got "strict")');
    const [row] = await database.db
      .select()
      .from(tenantDomains)
      .where(eq(tenantDomains.domain, 'verify2.test'));
    expect(row!.recipientVerification).toBe('auto');
    expect((await run('tenant:domain-verify', '--domain', 'verify2.test')).exitCode).toBe(2);
  });

  it('answers a clear error for a domain no tenant has', async () => {
    const res = await run('tenant:domain-verify', '--domain', 'nobody.test', '--mode', 'off');
    expect(res).toMatchObject({ exitCode: 1, stderr: 'Error: No tenant has the domain "nobody.test"\n' });
  });
});

describe('cli user:create', () => {
  it('creates a user with an argon2id password hash in the tenant of its domain', async () => {
    const res = await run(
      'user:create',
      '--email',
      'Ana@Acme.test',
      '--role',
      'admin',
      '--password',
      'correct horse',
    );
    expect(res.exitCode).toBe(0);
    const [user] = await database.db.select().from(users).where(eq(users.email, 'ana@acme.test'));
    expect(user).toMatchObject({ role: 'admin', status: 'active' });
    expect(user!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verify(user!.passwordHash!, 'correct horse')).toBe(true);
  });

  it('reads the password from standard input with --password-stdin', async () => {
    const res = await runCommand(
      ['user:create', '--email', 'stdin@acme.test', '--role', 'user', '--password-stdin'],
      {
        db: database.db,
        config: { publicUrl: 'https://moat.test' },
        clock: systemClock,
        cwd: os.tmpdir(),
        stdin: 'from-stdin-pw\n',
      },
    );
    expect(res.exitCode).toBe(0);
    const [user] = await database.db.select().from(users).where(eq(users.email, 'stdin@acme.test'));
    expect(await verify(user!.passwordHash!, 'from-stdin-pw')).toBe(true);
  });

  it('invites a user: prints the link once and stores only the token hash', async () => {
    const res = await run('user:create', '--email', 'bob@acme.test', '--role', 'user', '--invite');
    expect(res.exitCode).toBe(0);
    const token = /token=([A-Za-z0-9_-]{43})/.exec(res.stdout)?.[1];
    expect(token).toBeDefined();
    expect(res.stdout).toContain('https://moat.test/#/auth/reset-password?token=');
    const [user] = await database.db.select().from(users).where(eq(users.email, 'bob@acme.test'));
    expect(user).toMatchObject({ status: 'invited', passwordHash: null });
    expect(user!.inviteTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(user!.inviteTokenHash).not.toContain(token!);
  });

  it.each([
    [['--email', 'ana@acme.test', '--role', 'user', '--password', 'abcdefgh'], 1, /already exists/],
    [
      ['--email', 'x@nowhere.test', '--role', 'user', '--password', 'abcdefgh'],
      1,
      /No tenant has the domain nowhere\.test/,
    ],
    [['--email', 'bad-email', '--role', 'user', '--password', 'abcdefgh'], 1, /not a valid email address/],
    [
      ['--email', 'y@acme.test', '--role', 'root', '--password', 'abcdefgh'],
      2,
      /--role must be one of: admin, user/,
    ],
    [['--email', 'y@acme.test', '--role', 'user', '--password', 'short'], 1, /at least 8 characters/],
    [
      ['--email', 'y@acme.test', '--role', 'user'],
      2,
      /exactly one of --password, --password-stdin or --invite/,
    ],
    [['--email', 'y@acme.test', '--role', 'user', '--password', 'abcdefgh', '--invite'], 2, /exactly one of/],
  ])('refuses %j with exit code %i', async (args, code, message) => {
    const count = (await database.db.select().from(users)).length;
    const res = await run('user:create', ...args);
    expect(res.exitCode).toBe(code);
    expect(res.stderr).toMatch(message);
    expect(await database.db.select().from(users)).toHaveLength(count);
  });
});

describe('cli features:set', () => {
  it('stores flags for the tenant and shows them with features:list', async () => {
    const res = await run('features:set', '--tenant', 'acme.test', 'samlAuth=on', 'enableMFA=off');
    expect(res.exitCode).toBe(0);
    const rows = await database.db.select().from(featureFlags);
    expect(Object.fromEntries(rows.map((r) => [r.name, r.enabled]))).toEqual({
      samlAuth: true,
      enableMFA: false,
    });
    const list = await run('features:list', '--tenant', 'acme.test');
    expect(list.stdout).toContain('samlAuth = on\n');
    expect(list.stdout).toContain('enableMFA = off\n');
    expect(list.stdout).toContain('cloudAppsTab = on\n');
  });

  it('refuses an unknown flag or a bad value and changes nothing', async () => {
    const unknown = await run('features:set', '--tenant', 'acme.test', 'samlAuth=off', 'checkpoint=on');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown flag "checkpoint" \(did you mean checkpointTheme\?\)/);
    const bad = await run('features:set', '--tenant', 'acme.test', 'samlAuth=maybe');
    expect(bad.exitCode).toBe(2);
    const [row] = await database.db.select().from(featureFlags).where(eq(featureFlags.name, 'samlAuth'));
    expect(row!.enabled).toBe(true);
  });
});

describe('cli tenant:set-logo', () => {
  it('stores a logo file and refuses other file types', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-logo-'));
    fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from('89504e47', 'hex'));
    fs.writeFileSync(path.join(dir, 'logo.exe'), 'MZ');
    const ok = await runCommand(['tenant:set-logo', '--tenant', 'acme.test', '--file', 'logo.png'], {
      db: database.db,
      config: { publicUrl: 'https://moat.test' },
      clock: systemClock,
      cwd: dir,
    });
    expect(ok.exitCode).toBe(0);
    const bad = await run('tenant:set-logo', '--tenant', 'acme.test', '--file', path.join(dir, 'logo.exe'));
    expect(bad.exitCode).toBe(2);
    const [tenant] = await database.db
      .select({ mime: tenants.logoMime })
      .from(tenants)
      .innerJoin(tenantDomains, eq(tenantDomains.tenantId, tenants.id))
      .where(eq(tenantDomains.domain, 'acme.test'));
    expect(tenant!.mime).toBe('image/png');
  });
});

describe('cli tenant:update and user:update', () => {
  it("sets a tenant's sign-in policy and refuses bad values without changing anything", async () => {
    const res = await run(
      'tenant:update',
      '--tenant',
      'acme.test',
      '--mfa-required',
      'on',
      '--password-max-age',
      '90',
    );
    expect(res.exitCode).toBe(0);
    const [row] = await database.db
      .select({ mfaRequired: tenants.mfaRequired, age: tenants.passwordMaxAgeDays })
      .from(tenants)
      .innerJoin(tenantDomains, eq(tenantDomains.tenantId, tenants.id))
      .where(eq(tenantDomains.domain, 'acme.test'));
    expect(row).toEqual({ mfaRequired: true, age: 90 });
    for (const bad of [['--mfa-required', 'yes'], ['--password-max-age', '-3'], []]) {
      const refused = await run('tenant:update', '--tenant', 'acme.test', ...bad);
      expect(refused.exitCode).toBe(2);
    }
    expect((await run('tenant:update', '--tenant', 'acme.test', '--password-max-age', 'off')).exitCode).toBe(
      0,
    );
  });

  it("changes a user's flags and writes the audit log", async () => {
    const res = await run(
      'user:update',
      '--email',
      'ana@acme.test',
      '--hidden',
      'on',
      '--mfa-required',
      'on',
    );
    expect(res.exitCode).toBe(0);
    const [user] = await database.db.select().from(users).where(eq(users.email, 'ana@acme.test'));
    expect(user).toMatchObject({ hidden: true, mfaRequired: true });
    const [entry] = await database.db.select().from(auditLog).where(eq(auditLog.action, 'user.update'));
    expect(entry!.details).toEqual({ hidden: true, mfaRequired: true });
    expect((await run('user:update', '--email', 'nobody@acme.test', '--hidden', 'on')).exitCode).toBe(1);
  });

  it('prints a one-time sign-in link and resets MFA', async () => {
    const link = await run('auth:link', '--email', 'ana@acme.test');
    expect(link.stdout).toMatch(/https:\/\/moat\.test\/#\/dashboard\?accessToken=[A-Za-z0-9_-]{43}/);
    expect((await run('auth:link', '--email', 'ghost@acme.test')).exitCode).toBe(1);
    expect((await run('user:reset-mfa', '--email', 'ana@acme.test')).stdout).toBe(
      'MFA of ana@acme.test is off\n',
    );
  });
});

describe('cli help', () => {
  it('lists every command with --help and answers unknown commands with exit code 2', async () => {
    const help = await run('--help');
    expect(help.exitCode).toBe(0);
    for (const c of ['tenant:create', 'tenant:domain-add', 'user:create', 'features:set'])
      expect(help.stdout).toContain(c);
    const one = await run('user:create', '--help');
    expect(one.stdout).toContain('Usage: npm run cli -- user:create --email EMAIL --role admin|user');
    const unknown = await run('tenant:destroy');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "tenant:destroy"');
  });
});

describe('audit log', () => {
  it('is append-only: updates and deletes are refused by the database', async () => {
    await expect(database.db.update(auditLog).set({ action: 'forged' })).rejects.toThrow();
    await expect(database.db.delete(auditLog)).rejects.toThrow();
    const rows = await database.db.select().from(auditLog);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.action !== 'forged')).toBe(true);
  });
});

describe('cli console commands (issue 5)', () => {
  it('tenant:apps enables and disables apps and tools, and refuses unknown names changing nothing', async () => {
    await run('tenant:create', '--name', 'Apps', '--domain', 'apps.test');
    const ok = await run(
      'tenant:apps',
      '--tenant',
      'apps.test',
      '--enable',
      'office365_emails,google_mail',
      '--enable-tools',
      'archiving',
    );
    expect(ok).toMatchObject({ exitCode: 0 });
    expect(ok.stdout).toContain('office365_emails enabled');
    const off = await run('tenant:apps', '--tenant', 'apps.test', '--disable', 'google_mail');
    expect(off.exitCode).toBe(0);
    const bad = await run('tenant:apps', '--tenant', 'apps.test', '--enable', 'office365_emails,myspace');
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('bad: "myspace"');
    const [tenant] = await database.db.select().from(tenants).where(eq(tenants.name, 'Apps'));
    const apps = await database.db.select().from(saasApps).where(eq(saasApps.tenantId, tenant!.id));
    // A new tenant starts with SMTP mail protected; the command changes only what it names.
    expect(Object.fromEntries(apps.map((a) => [a.name, a.state]))).toEqual({
      smtp_emails: 'enabled',
      office365_emails: 'enabled',
      google_mail: 'disabled',
    });
  });

  it('tenant:update sets the licence, trial and MSP fields and refuses impossible dates', async () => {
    await run('tenant:create', '--name', 'Lic', '--domain', 'lic.test');
    const ok = await run(
      'tenant:update',
      '--tenant',
      'lic.test',
      '--mode',
      'paid',
      '--paid-expires',
      '2027-01-31',
      '--msp',
      'on',
      '--portal-locked',
      'on',
      '--trial-days',
      '45',
    );
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('paidExpirationDate = 2027-01-31');
    const [tenant] = await database.db.select().from(tenants).where(eq(tenants.name, 'Lic'));
    expect(tenant).toMatchObject({ isMsp: true, portalLicenseState: 'locked', trialExpirationDays: 45 });
    expect(tenant!.paidExpirationDate?.toISOString()).toBe('2027-01-31T00:00:00.000Z');
    for (const args of [
      ['--paid-expires', '2027-02-30'],
      ['--trial-start', 'off'],
      ['--trial-days', '-3'],
    ]) {
      const bad = await run('tenant:update', '--tenant', 'lic.test', ...args);
      expect(bad.exitCode, args.join(' ')).toBe(2);
    }
  });

  it('incident:open, incident:list and incident:resolve manage the service status', async () => {
    const opened = await run(
      'incident:open',
      '--title',
      'Mail delays',
      '--severity',
      'error',
      '--nav-item',
      'mail-explorer',
    );
    expect(opened.exitCode).toBe(0);
    const id = /incident ([0-9a-f-]{36})/.exec(opened.stdout)?.[1];
    expect((await run('incident:list')).stdout).toContain(`${id}  error  mail-explorer  Mail delays`);
    expect((await run('incident:resolve', '--id', id!)).exitCode).toBe(0);
    expect((await run('incident:list')).stdout).toBe('No open incidents\n');
    expect((await run('incident:resolve', '--id', id!)).exitCode).toBe(1);
    expect((await run('incident:open', '--title', 'x', '--severity', 'panic')).exitCode).toBe(2);
  });

  it('trial:approve says when there is no open request and refuses a bad --days', async () => {
    expect((await run('trial:requests')).stdout).toBe('No open trial-extension requests\n');
    expect((await run('trial:approve', '--tenant', 'lic.test', '--days', 'ten')).exitCode).toBe(2);
  });
});

describe('cli gateway commands (issue 6)', () => {
  it('gateway:policy shows the defaults, sets an action and refuses delivering malware', async () => {
    await run('tenant:create', '--name', 'Gw', '--domain', 'gw.test');
    const shown = await run('gateway:policy', '--tenant', 'gw.test');
    expect(shown.stdout).toContain('malware     quarantine');
    expect(shown.stdout).toContain('suspicious  strip');
    const set = await run(
      'gateway:policy',
      '--tenant',
      'gw.test',
      '--verdict',
      'spam',
      '--action',
      'quarantine_silent',
    );
    expect(set.stdout).toContain('spam        quarantine_silent');
    expect(
      (await run('gateway:policy', '--tenant', 'gw.test', '--verdict', 'malware', '--action', 'deliver'))
        .exitCode,
    ).toBe(2);
    expect((await run('gateway:policy', '--tenant', 'gw.test', '--verdict', 'spam')).exitCode).toBe(2);
  });

  it('gateway:sender-list adds and removes entries and refuses what is not an address or domain', async () => {
    expect((await run('gateway:sender-list', '--tenant', 'gw.test', '--block', 'Spam.Example')).stdout).toBe(
      'Added spam.example to the block list of "Gw"\n',
    );
    const [gw] = await database.db.select().from(tenantDomains).where(eq(tenantDomains.domain, 'gw.test'));
    const policies = createGatewayPolicyRepo(database.db);
    const listOf = async (sender: string) =>
      senderListFrom(await policies.entriesAmong(gw!.tenantId, senderKeys(sender)), sender);
    expect(await listOf('x@mail.spam.example')).toBe('block');
    expect(
      (await run('gateway:sender-list', '--tenant', 'gw.test', '--block', 'spam.example', '--remove'))
        .exitCode,
    ).toBe(0);
    expect(await listOf('x@mail.spam.example')).toBeNull();
    expect(
      (await run('gateway:sender-list', '--tenant', 'gw.test', '--allow', 'not a domain')).exitCode,
    ).toBe(2);
    expect((await run('gateway:sender-list', '--tenant', 'gw.test')).exitCode).toBe(2);
  });

  it('gateway:exceptions-list shows every entry with its kind, page, expiry, author and comment', async () => {
    await run(
      'gateway:sender-list',
      '--tenant',
      'gw.test',
      '--block',
      'bad@spam.example',
      '--comment',
      'phishing wave',
      '--expires',
      '2099-01-31T00:00:00Z',
    );
    await run('gateway:sender-list', '--tenant', 'gw.test', '--allow', 'partner.example');
    const listed = (await run('gateway:exceptions-list', '--tenant', 'gw.test')).stdout.split('\n');
    expect(listed[0]).toMatch(/^LIST\s+KIND\s+PAGE\s+VALUE\s+EXPIRES\s+ADDED BY\s+COMMENT$/);
    expect(listed.find((l) => l.includes('bad@spam.example'))).toMatch(
      /^block\s+sender\s+all\s+bad@spam\.example\s+2099-01-31 00:00\s+cli\s+phishing wave$/,
    );
    expect(listed.find((l) => l.includes('partner.example'))).toMatch(
      /^allow\s+domain\s+all\s+partner\.example\s+never\s+cli$/,
    );
    expect(
      (
        await run(
          'gateway:sender-list',
          '--tenant',
          'gw.test',
          '--block',
          'x.example',
          '--expires',
          '2001-01-01',
        )
      ).exitCode,
    ).toBe(2);
  });
});

describe('cli quarantine commands', () => {
  it('quarantine:policy shows the defaults, sets a mode and never makes malware restorable', async () => {
    await run('tenant:create', '--name', 'Qp', '--domain', 'qp.test');
    const set = await run(
      'quarantine:policy',
      '--tenant',
      'qp.test',
      '--verdict',
      'spam',
      '--mode',
      'automatic',
      '--identification',
      'off',
    );
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain('spam        automatic              identification off');
    expect(set.stdout).toContain('malware     none');
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'quarantine.policy_update'));
    expect(audit.at(-1)?.details).toEqual({ verdict: 'spam', mode: 'automatic', identification: false });
    expect(
      (await run('quarantine:policy', '--tenant', 'qp.test', '--verdict', 'malware', '--mode', 'request'))
        .exitCode,
    ).toBe(2);
  });

  it('quarantine:import holds a message, prints its link and queues the notice to the recipient', async () => {
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: undefined,
      fromAddress: 'moat@moat.test',
      log: { info: () => {}, warn: () => {}, error: () => {} },
      clock: systemClock,
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-import-'));
    fs.writeFileSync(
      path.join(dir, 'held.eml'),
      'From: Boss <boss@evil.example>\r\nTo: ann@qp.test\r\nSubject: Pay <b>now</b>\r\n\r\nPlease pay.\r\n',
    );
    const res = await runCommand(
      ['quarantine:import', '--file', 'held.eml', '--recipient', 'ann@qp.test', '--verdict', 'phishing'],
      { db: database.db, config: { publicUrl: 'https://moat.test' }, clock: systemClock, cwd: dir, mailer },
    );
    await mailer.stop();
    expect(res).toMatchObject({ exitCode: 0, stderr: '' });
    expect(res.stdout).toContain('Held: "Pay <b>now</b>" for ann@qp.test (phishing');
    const link = /Restore email: (\S+)/.exec(res.stdout)?.[1];
    expect(link).toMatch(/^https:\/\/moat\.test\/#\//);
    const [notice] = await database.db.select().from(outbox).where(eq(outbox.kind, 'quarantine_notice'));
    expect(notice).toMatchObject({
      toAddress: 'ann@qp.test',
      subject: 'A message to you was held: Pay <b>now</b>',
    });
    expect(notice!.text).toContain(link!);
    expect(notice!.html).toContain('Pay &lt;b&gt;now&lt;/b&gt;');
    const missing = await runCommand(
      ['quarantine:import', '--file', 'nope.eml', '--recipient', 'ann@qp.test'],
      {
        db: database.db,
        config: { publicUrl: 'https://moat.test' },
        clock: systemClock,
        cwd: dir,
        mailer,
      },
    );
    expect(missing).toMatchObject({
      exitCode: 1,
      stderr: `Error: Cannot read the file ${path.join(dir, 'nope.eml')}\n`,
    });
  });
});
