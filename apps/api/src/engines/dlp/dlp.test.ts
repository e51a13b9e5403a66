import { DLP_DATA_TYPES, type DlpDataType } from '@moat/contracts/dlp';
import { describe, expect, it } from 'vitest';
import { luhnValid } from './checks.ts';
import { checkDlpPattern, compileDlpRules, type DlpRuleSet, findDlp } from './index.ts';
import { allTypes, inBody } from './test-support.ts';

const ALL_TYPES = allTypes();
const findIn = (body: string) => findDlp(inBody(body), ALL_TYPES);
const typesIn = (body: string) => findIn(body).map((f) => f.type);
const findingOf = (body: string, type: DlpDataType) => findIn(body).find((f) => f.type === type);
/** Every sample and the text they were found in, to check that no sample gives the value away. */
const samplesOf = (body: string) => findIn(body).flatMap((f) => f.samples);

/** The digit that makes `prefix` a Luhn-valid number. */
const withLuhn = (prefix: string) => {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${prefix}${d}`)) return `${prefix}${d}`;
  throw new Error('unreachable');
};

const ORDINARY_MAIL = `Hi Sam,

Following our call on 2024-01-15 (and the follow-up on 15/01/2024 at 10:30), here is the summary.
Order number ORD-2024-000123 and PO 4500012345 were shipped; tracking 1Z999AA10123456784,
FedEx 449044304137821 and USPS 9400 1000 0000 0000 0000 00. Invoice INV-88231 totals $12,345.67
(€ 1.234.567,89 for the group), due 2024-02-14T09:00:00Z. Call me on +44 20 7946 0958 or
+1 (212) 555-0199, fax 020 7946 0959. Reference 123e4567-e89b-12d3-a456-426614174000 and
00000000-0000-0000-0000-000000000000. Build 2024.01.15.1234, version 10.4.3, ISBN 978-3-16-148410-0,
EAN 4006381333932. Quantities: 1200 units at 4.50 each; account manager ext. 4412.
Meeting room B-204, floor 12, 9:00–17:30. Sort code 20-00-00, account 55779911.

Best regards,
Alex`;

describe('findDlp: ordinary business mail', () => {
  it('finds nothing in dates, phone numbers, order and tracking numbers, UUIDs, prices', () => {
    expect(findIn(ORDINARY_MAIL)).toEqual([]);
  });
});

describe('findDlp: payment cards', () => {
  it('finds the test numbers of each scheme, bare, with spaces and with dashes', () => {
    const body = [
      'Visa 4111 1111 1111 1111',
      'Mastercard 5555555555554444 and 2221-0000-0000-0009',
      'Amex 378282246310005 (3782 822463 10005)',
      'Discover 6011111111111117, JCB 3530111333300000, Diners 30569309025904, UnionPay 6200000000000005',
    ].join('\n');
    const found = findingOf(body, 'payment_card');
    expect(found?.count).toBe(8);
    expect(found?.ruleName).toBe('Payment card number');
    expect(found?.samples).toEqual(['4111 **** **** 1111', '5555 **** **** 4444', '2221 **** **** 0009']);
    expect(found?.places).toEqual(['body']);
  });

  it('reads a card followed by its expiry and security code', () => {
    expect(findingOf('card 4111 1111 1111 1111 12/26 123 thanks', 'payment_card')?.count).toBe(1);
    expect(findingOf('CVV 123 4111 1111 1111 1111', 'payment_card')?.count).toBe(1);
  });

  it('refuses numbers whose Luhn digit, length or issuer range is wrong', () => {
    expect(typesIn('4111 1111 1111 1112')).toEqual([]);
    // An American Express range with 16 digits, a Visa with 15, an unknown range (9…).
    expect(
      typesIn(`${withLuhn('340000000000000')} ${withLuhn('41111111111111')} ${withLuhn('900000000000000')}`),
    ).toEqual([]);
    // Thirteen digits: EAN-13 barcodes look like old Visa numbers.
    expect(typesIn(withLuhn('400638133393'))).toEqual([]);
  });

  it('refuses digits that are part of a longer number or glued to letters', () => {
    expect(typesIn('41111111111111111111')).toEqual([]);
    expect(typesIn('id x4111111111111111 and 4111111111111111z')).toEqual([]);
    expect(typesIn('+4111111111111111')).toEqual([]);
    expect(typesIn('total 0.4111111111111111')).toEqual([]);
    // Groups of one or two digits are not how cards are written.
    expect(typesIn('4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1')).toEqual([]);
  });

  it('counts distinct numbers: a card quoted three times in a thread counts once', () => {
    const thread = 'Card 4111 1111 1111 1111.\n> Card 4111-1111-1111-1111\n>> 4111111111111111';
    const found = findingOf(thread, 'payment_card');
    expect(found?.count).toBe(1);
    const twice = compileDlpRules({
      types: [{ type: 'payment_card', threshold: 2, fileTypes: [] }],
      custom: [],
    });
    expect(findDlp(inBody(thread), twice)).toEqual([]);
    expect(findDlp(inBody(`${thread} 5555555555554444`), twice)).toHaveLength(1);
  });
});

describe('findDlp: IBANs', () => {
  it('finds IBANs of SEPA and other countries, grouped in fours or compact', () => {
    const ibans = [
      'GB82 WEST 1234 5698 7654 32',
      'DE89 3704 0044 0532 0130 00',
      'FR7630006000011234567890189',
      'NL91ABNA0417164300',
      'CH9300762011623852957',
      'NO9386011117947',
      'TR330006100519786457841326',
      'SA0380000000608010167519',
      'AE070331234567890123456',
      'IL620108000000099999999',
      'BR1800360305000010009795493C1',
      'IT60X0542811101000000123456',
    ];
    const found = findingOf(`Please pay to ${ibans.join(', ')}.`, 'iban');
    expect(found?.count).toBe(ibans.length);
    expect(found?.samples[0]).toBe('GB82 **** **** **** ** 5432');
  });

  it('refuses a wrong check, a wrong length and an unknown country', () => {
    expect(typesIn('GB83 WEST 1234 5698 7654 32')).toEqual([]);
    expect(typesIn('DE89 3704 0044 0532 0130 0')).toEqual([]);
    expect(typesIn('XX82WEST12345698765432')).toEqual([]);
  });

  it('finds an IBAN between other capitals and codes ("REF AB12 …", "… BIC COBADEFFXXX")', () => {
    expect(findingOf('REF AB12 DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX', 'iban')?.count).toBe(1);
  });
});

describe('findDlp: national identifiers', () => {
  it('finds US Social Security numbers, and bare nine digits only after "SSN"', () => {
    const found = findingOf('SSN 123-45-6789, spouse 234 56 7890; Social Security No.: 345678901', 'us_ssn');
    expect(found).toEqual(
      expect.objectContaining({ count: 3, samples: ['***-**-6789', '***-**-7890', '***-**-8901'] }),
    );
    expect(typesIn('Employee 345678901 joined')).toEqual([]);
  });

  it('refuses SSNs of areas 000, 666 and 900–999, group 00, serial 0000, and the advertised numbers', () => {
    for (const ssn of [
      '000-12-3456',
      '666-12-3456',
      '900-12-3456',
      '999-12-3456',
      '123-00-4567',
      '123-45-0000',
    ]) {
      expect(typesIn(`SSN ${ssn}`)).toEqual([]);
    }
    expect(typesIn('SSN 078-05-1120 or 219-09-9999')).toEqual([]);
    expect(typesIn('1-123-45-6789 and 123-45-6789-1')).toEqual([]);
  });

  it('finds UK National Insurance numbers with valid prefixes and suffixes', () => {
    const found = findingOf('NI: AB 12 34 56 C and JR123456A', 'uk_nino');
    expect(found).toEqual(expect.objectContaining({ count: 2, samples: ['AB ** ** ** C', 'JR ** ** ** A'] }));
    expect(typesIn('BG123456C GB123456A DA123456C AO123456C AB123456E XAB123456C')).toEqual([]);
  });

  it('finds Canadian SINs (Luhn), bare only after "SIN", not phone numbers', () => {
    expect(findingOf('SIN 130-692-544', 'ca_sin')?.count).toBe(1);
    expect(findingOf('number 130 692 544', 'ca_sin')?.count).toBe(1);
    expect(findingOf('Social insurance number: 130692544', 'ca_sin')?.samples).toEqual(['***-***-544']);
    expect(typesIn('130-692-545 046-454-286 and 130692544')).toEqual([]);
    expect(typesIn('Tel: 612 345 678')).toEqual([]);
  });

  it('finds Spanish DNI and NIE numbers with the right check letter', () => {
    const found = findingOf('DNI 12345678Z, 12.345.678-Z otra vez, NIE X1234567L', 'es_dni');
    expect(found).toEqual(expect.objectContaining({ count: 2, samples: ['*******8Z', '*******7L'] }));
    expect(typesIn('DNI 12345678A, NIE X1234567A')).toEqual([]);
  });

  it('finds French NIRs with the right key, Corsican departments included', () => {
    const found = findingOf('NIR 1 84 03 76 451 089 96 et 2 69 05 2A 123 456 88', 'fr_nir');
    expect(found).toEqual(
      expect.objectContaining({ count: 2, samples: ['***********8996', '***********5688'] }),
    );
    expect(typesIn('NIR 1 84 03 76 451 089 97')).toEqual([]);
  });
});

describe('findDlp: credentials', () => {
  const tokens = {
    aws: 'AKIAIOSFODNN7EXAMPLE',
    awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    github: `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`,
    githubFine: `github_pat_${'11ABCDEFG0'.repeat(8)}ab`,
    gitlab: 'glpat-Abc123Def456Ghi789Jk',
    slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    stripe: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
    google: 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
    openai: 'sk-proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qR5tU8',
    sendgrid: `SG.${'a1B2c3D4e5F6g7H8i9J0kL'}.${'M1n2O3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8E9f0G1h'}`,
    twilio: 'SK0123456789abcdef0123456789abcdef',
    jwt: `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"1234567890"}').toString('base64url')}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`,
  };

  it('finds the tokens of AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI, SendGrid, Twilio and JWTs', () => {
    const body = Object.entries(tokens)
      .map(([name, token]) =>
        name === 'awsSecret' ? `aws_secret_access_key = ${token}` : `${name}: ${token}`,
      )
      .join('\n');
    const found = findingOf(body, 'api_key');
    expect(found?.count).toBe(Object.keys(tokens).length);
    expect(found?.samples).toEqual(['AKIA…MPLE', 'wJal…EKEY', 'ghp_…cdef']);
    for (const token of Object.values(tokens)) {
      expect(samplesOf(body).some((s) => s.includes(token) || s.includes(token.slice(4, -4)))).toBe(false);
    }
  });

  it('passes over slugs, hashes and base64 that only look like tokens', () => {
    const jwtWithoutAlg = `${Buffer.from('{"typ":"JWT","x":1}').toString('base64url')}.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV`;
    expect(
      typesIn(
        `https://news.example/sk-hynix-reports-strong-quarterly-results-for-the-fourth-quarter\n${jwtWithoutAlg}\nsha ${'0123456789abcdef'.repeat(2)} AKIA1234`,
      ),
    ).toEqual([]);
  });

  it('finds private keys and shows only their first line', () => {
    const pem = (kind: string, body: string) => `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----`;
    const body = [
      pem('RSA PRIVATE KEY', 'MIIEowIBAAKCAQEAx4Xz0sEcretMaterial'),
      pem('OPENSSH PRIVATE KEY', 'b3BlbnNzaC1rZXktdjEAAAAA'),
      pem('PGP PRIVATE KEY BLOCK', 'lQOYBGS0'),
      pem('PRIVATE KEY', 'MIIEvQIBADANBgkqhkiG9w0B'),
      'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none',
      pem('PUBLIC KEY', 'MIIBIjANBgkqhkiG9w0BAQEF'),
    ].join('\n');
    const found = findingOf(body, 'private_key');
    expect(found?.count).toBe(5);
    expect(found?.samples).toEqual([
      '-----BEGIN RSA PRIVATE KEY-----',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
    ]);
    expect(
      findingOf(`${pem('RSA PRIVATE KEY', 'AAAA')}\n${pem('RSA PRIVATE KEY', 'BBBB')}`, 'private_key')?.count,
    ).toBe(2);
  });
});

describe('findDlp: custom rules', () => {
  const rules = (custom: Partial<DlpRuleSet['custom'][number]>): DlpRuleSet => ({
    types: [],
    custom: [
      {
        id: 'r1',
        name: 'Project Falcon',
        kind: 'keywords',
        keywords: [],
        pattern: '',
        threshold: 1,
        ...custom,
      },
    ],
  });

  it('counts keyword occurrences as whole words in any case, from the threshold on', () => {
    const compiled = compileDlpRules(rules({ keywords: ['Falcon', 'project  eagle'], threshold: 3 }));
    expect(findDlp(inBody('falcon and FALCON, not falconry or Falcons'), compiled)).toEqual([]);
    expect(findDlp(inBody('falcon, FALCON and Project\nEagle'), compiled)).toEqual([
      {
        type: 'custom',
        ruleId: 'r1',
        ruleName: 'Project Falcon',
        count: 3,
        samples: ['Falcon', 'project  eagle'],
        places: ['body'],
      },
    ]);
  });

  it('matches keywords literally: their special characters are escaped', () => {
    const compiled = compileDlpRules(
      rules({ keywords: ['C++ roadmap', 'a.b', '(draft)', 'ACME-42', 'x/y'] }),
    );
    expect(findDlp(inBody('the C++ roadmap (draft) for ACME-42 and x/y'), compiled)[0]?.count).toBe(4);
    expect(findDlp(inBody('axb C roadmap draft'), compiled)).toEqual([]);
  });

  it('runs expressions on RE2 and masks what they match', () => {
    const compiled = compileDlpRules(rules({ kind: 'regex', pattern: '(?i)acme-\\d{6}', threshold: 2 }));
    const found = findDlp(
      {
        subject: 'ACME-123456',
        body: 'see acme-654321 and ACME-123456 again',
        parts: [],
        files: [],
        unchecked: [],
      },
      compiled,
    );
    expect(found).toEqual([
      expect.objectContaining({ count: 2, samples: ['AC***56', 'ac***21'], places: ['subject', 'body'] }),
    ]);
    expect(findDlp(inBody('ACME-12345'), compiled)).toEqual([]);
  });

  it('leaves out a rule whose expression does not compile (saved before a check existed)', () => {
    expect(compileDlpRules(rules({ kind: 'regex', pattern: '(a' })).custom).toEqual([]);
    expect(compileDlpRules(rules({ kind: 'keywords', keywords: ['  '] })).custom).toEqual([]);
  });
});

describe('checkDlpPattern', () => {
  it('accepts RE2 expressions, case-insensitive ones included', () => {
    expect(checkDlpPattern('ACME-\\d{6}')).toBeNull();
    expect(checkDlpPattern('(?i)\\bproject\\s+falcon\\b')).toBeNull();
  });

  it('says why an expression cannot be used', () => {
    expect(checkDlpPattern('')).toBe('Enter an expression');
    expect(checkDlpPattern('(a')).toBe('Not a valid expression: missing closing )');
    expect(checkDlpPattern('[a-')).toBe('Not a valid expression: missing closing ]');
    expect(checkDlpPattern('(?=x)')).toBe('Look-around and back-references are not supported');
    expect(checkDlpPattern('(?<!x)y')).toBe('Look-around and back-references are not supported');
    expect(checkDlpPattern('(a)\\1')).toBe('Look-around and back-references are not supported');
    expect(checkDlpPattern('a*')).toBe('The expression matches empty text');
    expect(checkDlpPattern('x|')).toBe('The expression matches empty text');
    expect(checkDlpPattern('\\b')).toBe('The expression matches empty text');
    expect(checkDlpPattern('a'.repeat(501))).toBe('The expression is longer than 500 characters');
    expect(checkDlpPattern('\\w{1000}\\d{1000}\\s{1000}')).toBe('The expression is too complex');
  });
});

describe('findDlp: bounded work', () => {
  it('reads a megabyte of digits, letters or token-like runs in one pass and finds nothing', () => {
    const mb = 1024 * 1024;
    const custom = compileDlpRules({
      types: DLP_DATA_TYPES.map((type) => ({ type, threshold: 1, fileTypes: [] })),
      custom: [
        { id: 'k', name: 'k', kind: 'keywords', keywords: ['falcon'], pattern: '', threshold: 1 },
        { id: 'r', name: 'r', kind: 'regex', keywords: [], pattern: '(a+)+b', threshold: 1 },
      ],
    });
    for (const text of [
      '1'.repeat(mb),
      'A'.repeat(mb),
      'a'.repeat(mb),
      '1 '.repeat(mb / 2),
      '1-'.repeat(mb / 2),
      'AB12 '.repeat(mb / 5),
      'eyJ-'.repeat(mb / 4),
      `eyJ${'a'.repeat(mb)}`,
      'sk-'.repeat(mb / 3),
      'xoxb-'.repeat(mb / 5),
      'SSN '.repeat(mb / 4),
      '-----BEGIN '.repeat(mb / 11),
    ]) {
      expect(findDlp(inBody(text), custom)).toEqual([]);
    }
  });

  it('counts at most 1,000 values per rule', () => {
    const cards = Array.from({ length: 1_500 }, (_, i) => withLuhn(`400000000${String(i).padStart(6, '0')}`));
    expect(findingOf(cards.join(' , '), 'payment_card')?.count).toBe(1_000);
  });

  it('scans at most 8 MiB of a message', () => {
    const filler = `${'lorem ipsum '.repeat(1024)}\n`;
    const body = `${filler.repeat(Math.ceil((8.5 * 1024 * 1024) / filler.length))}4111 1111 1111 1111`;
    expect(findingOf(body, 'payment_card')).toBeUndefined();
    expect(
      findDlp({ subject: '4111 1111 1111 1111', body, parts: [], files: [], unchecked: [] }, ALL_TYPES)[0]
        ?.places,
    ).toEqual(['subject']);
  });
});
