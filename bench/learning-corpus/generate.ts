/**
 * Mail of kinds the shipped anti-spam model never saw (it learned from 2002's mail): seven
 * families of 2020s spam and scams, and everyday 2020s mail people want, each family several
 * templates with its words, names, amounts, links and senders drawn at random. The same seed
 * gives the same messages, so the learning benchmark reads the same mail on every machine.
 * Written for the benchmark only, from the shapes such mail commonly takes; every name, address,
 * wallet and number in it is made up.
 */

/** A small, seeded random source (mulberry32): the same seed, the same mail. */
export function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof randomSource>;

const FIRST = [
  'James',
  'Maria',
  'David',
  'Sarah',
  'Michael',
  'Laura',
  'Daniel',
  'Emma',
  'Robert',
  'Olivia',
  'Thomas',
  'Sofia',
  'Kevin',
  'Anna',
  'Mark',
  'Julia',
];
const LAST = [
  'Miller',
  'Garcia',
  'Johnson',
  'Schmidt',
  'Brown',
  'Rossi',
  'Wilson',
  'Novak',
  'Taylor',
  'Dubois',
  'Anderson',
  'Kowalski',
  'Clarke',
  'Moreau',
];
const SYLLABLES = [
  'vex',
  'tra',
  'lio',
  'nor',
  'qua',
  'zen',
  'bit',
  'mar',
  'sol',
  'kor',
  'pex',
  'lum',
  'fin',
  'dar',
  'rix',
  'ova',
  'tek',
  'sur',
];
const SPAM_TLDS = ['top', 'xyz', 'shop', 'online', 'site', 'live', 'click', 'icu', 'info', 'com'];
const FREEMAIL = ['gmail.com', 'outlook.com', 'yahoo.com', 'hotmail.com', 'proton.me', 'aol.com'];

const person = (r: Random) => `${r.pick(FIRST)} ${r.pick(LAST)}`;
const word = (r: Random, n = r.int(2, 3)) => Array.from({ length: n }, () => r.pick(SYLLABLES)).join('');
const spamDomain = (r: Random) =>
  `${word(r)}${r.chance(0.3) ? `-${r.pick(['secure', 'online', 'group', 'pay'])}` : ''}.${r.pick(SPAM_TLDS)}`;
const freemail = (r: Random, name: string) =>
  `${name.toLowerCase().replace(' ', r.pick(['.', '', '_']))}${r.chance(0.6) ? r.int(1, 999) : ''}@${r.pick(FREEMAIL)}`;
const money = (r: Random, min: number, max: number) => r.int(min, max).toLocaleString('en-US');
const code = (r: Random, n: number) =>
  Array.from({ length: n }, () => r.pick([...'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'])).join('');
const link = (r: Random, domain = spamDomain(r)) =>
  `https://${r.chance(0.4) ? `${r.pick(['www', 'app', 'secure', 'portal'])}.` : ''}${domain}/${r.pick(['', 'l/', 'go/', 'r/', 'track/'])}${code(r, r.int(5, 9)).toLowerCase()}`;
const lines = (...parts: Array<string | false>) => parts.filter((p) => p !== false).join('\n');

export interface GeneratedMail {
  family: string;
  from: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

type Family = (r: Random) => GeneratedMail;

/** The spam and scams, by family. */
export const SPAM_FAMILIES: Record<string, Family> = {
  crypto(r) {
    const coin = r.pick(['Bitcoin', 'BTC', 'Ethereum', 'crypto', 'USDT']);
    const platform = `${word(r, 2)[0]?.toUpperCase()}${word(r, 2).slice(1)} ${r.pick(['AI', 'Trade', 'Capital', 'Quantum', 'Invest'])}`;
    const pct = r.int(3, 12);
    const url = link(r);
    const subject = r.pick([
      `Your ${coin} account has ${money(r, 2, 90)},${r.int(100, 999)} USD waiting`,
      `${person(r)} turned $250 into $${money(r, 9000, 40000)} with ${platform}`,
      `Last chance: ${platform} closes registrations tonight`,
      `Re: your ${coin} withdrawal is ready`,
      `The ${coin} trick banks don't want you to know`,
    ]);
    const text = lines(
      r.pick(['Hello,', 'Dear investor,', 'Hi there,', 'Good day,']),
      '',
      r.pick([
        `Our automated ${platform} platform has been making members ${pct}% per day trading ${coin}, with no experience needed.`,
        `You have been selected to join ${platform}, the AI trading robot that earns up to ${pct}% daily profit on ${coin}.`,
        `A balance of ${money(r, 2000, 95000)} USD in ${coin} is waiting in your ${platform} account. Confirm your wallet to withdraw it.`,
      ]),
      r.pick([
        'Start with a minimum deposit of just $250 and watch your balance grow while you sleep.',
        'Thousands of people have already quit their jobs. Your spot is reserved for the next 24 hours only.',
        'Withdrawals are processed instantly and your capital is 100% protected.',
      ]),
      '',
      `${r.pick(['Activate your account', 'Claim your profit', 'Register now', 'Withdraw now'])}: ${url}`,
      '',
      r.pick(['Best regards,', 'To your success,', 'Sincerely,']),
      `${person(r)}, ${r.pick(['Account Manager', 'Senior Analyst', 'Client Success'])}`,
      r.chance(0.5) && `${platform} Ltd. Unsubscribe: ${link(r)}`,
    );
    return {
      family: 'crypto investment',
      from: `${platform} <${r.pick(['support', 'info', 'team', 'noreply'])}@${spamDomain(r)}>`,
      subject,
      text,
      html: r.chance(0.6)
        ? `<html><body style="font-family:Arial"><h2 style="color:#f7931a">${subject}</h2><p>${text.split('\n\n').slice(1, 3).join('</p><p>')}</p><p><a href="${url}" style="background:#16c784;color:#ffffff;padding:12px 24px;text-decoration:none">${r.pick(['START EARNING', 'CLAIM NOW', 'GET STARTED'])}</a></p></body></html>`
        : undefined,
    };
  },

  invoice(r) {
    const vendor = r.pick([
      'DocuSign',
      'QuickBooks',
      'Intuit',
      'Accounts Payable',
      'Billing Department',
      'Finance Team',
    ]);
    const number = `INV-${r.int(10000, 99999)}`;
    const amount = `${money(r, 480, 19800)}.${r.int(10, 99)}`;
    const url = link(r);
    const subject = r.pick([
      `Invoice ${number} is overdue`,
      `Payment reminder: ${number} (${r.pick(['USD', 'EUR', 'GBP'])} ${amount})`,
      `${vendor}: please review and sign ${number}`,
      `Final notice - outstanding balance on ${number}`,
      `Re: Invoice ${number} - remittance required`,
    ]);
    const text = lines(
      r.pick(['Hello,', 'Dear customer,', 'Hi,', 'Good morning,']),
      '',
      r.pick([
        `Please find attached invoice ${number} for ${amount} which is now ${r.int(3, 45)} days past due.`,
        `You have received a document to review and sign: ${number}, amount due ${amount}.`,
        `Our records show that payment for invoice ${number} (${amount}) has not been received.`,
      ]),
      r.pick([
        'To avoid late fees and suspension of service, please settle the balance today.',
        'Kindly process the payment at your earliest convenience or the account will be sent to collections.',
        'Note our bank details have changed; please use the new account in the secure portal for this payment.',
      ]),
      '',
      `${r.pick(['View invoice', 'Review document', 'Pay now', 'Open secure portal'])}: ${url}`,
      '',
      r.pick(['Thank you,', 'Regards,', 'Kind regards,']),
      `${person(r)}`,
      vendor,
    );
    return {
      family: 'fake invoice',
      from: `${vendor} <${r.pick(['billing', 'invoices', 'ar', 'dse'])}@${spamDomain(r)}>`,
      subject,
      text,
      html: r.chance(0.7)
        ? `<html><body><table width="600" style="border:1px solid #dddddd"><tr><td style="padding:20px"><p>${text.split('\n\n')[1]?.replace(/\n/g, '<br>')}</p><p><a href="${url}" style="background:#1f5eff;color:#fff;padding:10px 20px">${r.pick(['REVIEW DOCUMENT', 'VIEW INVOICE', 'PAY NOW'])}</a></p></td></tr></table></body></html>`
        : undefined,
    };
  },

  giftCard(r) {
    const boss = person(r);
    const card = r.pick(['Apple', 'Google Play', 'Amazon', 'Steam', 'iTunes', 'Visa gift']);
    return {
      family: 'gift card',
      from: `${boss} <${freemail(r, boss)}>`,
      subject: r.pick([
        'Quick favor',
        'Are you available?',
        'Urgent request',
        'Need your help',
        'Task',
        `Re: ${r.pick(['meeting', 'today', 'quick one'])}`,
      ]),
      text: lines(
        r.pick(['Hi,', 'Hello,', 'Hey,', '']),
        r.pick([
          'Are you available? I need you to handle a task for me discreetly.',
          "I'm in a meeting right now and can't talk, but I need a quick favor.",
          'Let me know when you are at your desk, I have something urgent.',
        ]),
        r.pick([
          `I need to get ${r.int(4, 10)} ${card} cards of $${r.pick([100, 200, 250, 500])} each for some clients as a surprise.`,
          `Can you purchase ${card} gift cards today? It's for a staff appreciation, I'll reimburse you.`,
          `I want to surprise the team with ${card} cards. Buy them at any store near you.`,
        ]),
        r.pick([
          'Scratch the back and send me pictures of the codes by email.',
          'Once you have them, take a photo of the cards and reply here with the codes.',
          'Keep this between us for now, it is a surprise.',
        ]),
        '',
        r.pick(['Thanks', 'Regards', 'Sent from my iPhone', 'Thank you']),
        boss.split(' ')[0] ?? boss,
      ),
    };
  },

  sextortion(r) {
    const wallet = `bc1q${code(r, 38).toLowerCase()}`;
    const amount = r.pick(['1200', '1450', '950', '2000', '1650']);
    return {
      family: 'sextortion',
      from: `${r.pick(['', 'Hacker', 'Anonymous'])} <${word(r)}${r.int(10, 99)}@${r.pick(FREEMAIL)}>`.trim(),
      subject: r.pick([
        'I know your password',
        'Your account has been hacked',
        `Security alert: ${r.int(2, 9)} days left`,
        'You have been recorded',
        'Payment required - last warning',
      ]),
      text: lines(
        r.pick(['Hello!', 'Hi,', 'Greetings,']),
        '',
        r.pick([
          'I have some bad news for you. Several months ago I gained access to the devices you use to browse the internet.',
          'I hacked your operating system and installed software that has been watching your activity for months.',
          'You may not know me, but I know everything about you. Your device was infected with my malware.',
        ]),
        r.pick([
          'I recorded a video of you through your webcam while you were visiting adult websites.',
          'I have a copy of your contacts, your messages and recordings from your camera.',
        ]),
        `If you want me to delete everything, transfer ${amount} USD in Bitcoin to my wallet: ${wallet}`,
        r.pick([
          'You have 48 hours from the moment you read this email. I will know when you open it.',
          'If I do not receive the payment, the video will be sent to all your contacts and colleagues.',
        ]),
        r.pick(['Do not try to reply or contact the police, it is useless.', 'Do not reply to this email.']),
      ),
      headers: { 'X-Priority': r.chance(0.5) ? '1 (Highest)' : '3 (Normal)' },
    };
  },

  jobScam(r) {
    const company = `${word(r, 2)[0]?.toUpperCase()}${word(r, 2).slice(1)} ${r.pick(['Solutions', 'Global', 'Media', 'Recruiting', 'Partners'])}`;
    const recruiter = person(r);
    const pay = r.pick(['$300', '$450', '$500', '$800', '€350']);
    return {
      family: 'job scam',
      from: `${recruiter} <${freemail(r, recruiter)}>`,
      subject: r.pick([
        'Remote part-time position - flexible hours',
        `Job offer: earn ${pay} per day from home`,
        'Your CV was shortlisted',
        `${company} is hiring online assistants`,
        'Re: your application',
      ]),
      text: lines(
        r.pick(['Hello,', 'Dear candidate,', 'Hi,']),
        '',
        r.pick([
          `I am a recruiter with ${company}. We found your resume online and think you are a great fit for a remote position.`,
          `${company} is looking for part-time online assistants. No experience is needed and you can work from your phone.`,
        ]),
        `The job only takes ${r.int(30, 90)} minutes a day and pays ${pay} daily, paid every day.`,
        r.pick([
          `To learn more, add me on WhatsApp: +${r.int(1, 99)} ${r.int(100, 999)} ${r.int(100, 999)} ${r.int(1000, 9999)}`,
          `Contact our HR on Telegram: @${word(r)}_hr`,
          `Reply with your phone number and age to receive the details.`,
        ]),
        '',
        r.pick(['Best regards,', 'Kind regards,']),
        recruiter,
        `${company} HR Department`,
      ),
    };
  },

  parcel(r) {
    const carrier = r.pick(['DHL', 'FedEx', 'UPS', 'USPS', 'Royal Mail', 'DPD', 'Post Office']);
    const url = link(r);
    const fee = `${r.int(1, 3)}.${r.int(10, 99)}`;
    const tracking = `${code(r, 2)}${r.int(100000000, 999999999)}${code(r, 2)}`;
    const text = lines(
      r.pick(['Dear customer,', 'Hello,', 'Notification:']),
      '',
      r.pick([
        `Your package ${tracking} could not be delivered because of unpaid customs duties.`,
        `We attempted to deliver your parcel ${tracking} today but the address was incomplete.`,
        `Your shipment ${tracking} is on hold at our depot.`,
      ]),
      `Please pay the fee of ${r.pick(['$', '€', '£'])}${fee} to schedule a new delivery within ${r.int(24, 72)} hours, or the parcel will be returned to the sender.`,
      '',
      `${r.pick(['Schedule delivery', 'Pay now', 'Confirm your address', 'Track and pay'])}: ${url}`,
      '',
      `${carrier} Customer Service`,
    );
    return {
      family: 'parcel fee',
      from: `${carrier} <${r.pick(['noreply', 'delivery', 'tracking', 'notice'])}@${spamDomain(r)}>`,
      subject: r.pick([
        `Your ${carrier} parcel is on hold`,
        `Delivery failed: action required (${tracking})`,
        `${carrier}: customs fee unpaid`,
        'Your package could not be delivered',
        `Reschedule your delivery - ${tracking}`,
      ]),
      text,
      html: r.chance(0.6)
        ? `<html><body><div style="background:#ffcc00;padding:10px"><b>${carrier}</b></div><p>${text.split('\n\n')[1]?.replace(/\n/g, '<br>')}</p><a href="${url}">${r.pick(['Schedule delivery', 'Pay now'])}</a></body></html>`
        : undefined,
    };
  },

  renewal(r) {
    const product = r.pick([
      'Norton 360',
      'McAfee Total Protection',
      'Geek Squad',
      'Microsoft 365',
      'PayPal',
      'Best Buy Protection',
    ]);
    const amount = `${r.int(199, 699)}.${r.pick(['99', '00', '49'])}`;
    const phone = `+1 (${r.int(800, 888)}) ${r.int(200, 999)}-${r.int(1000, 9999)}`;
    const order = `${r.int(100000, 999999)}${code(r, 3)}`;
    return {
      family: 'renewal / call-back',
      from: `${product} <${freemail(r, person(r))}>`,
      subject: r.pick([
        `Your ${product} subscription has been renewed`,
        `Order confirmation #${order}`,
        `Thank you for your payment of $${amount}`,
        `Auto-renewal successful - ${product}`,
        `Invoice #${order} - ${product}`,
      ]),
      text: lines(
        r.pick(['Dear customer,', 'Hello,', 'Dear user,']),
        '',
        `Thank you for renewing your ${product} plan. Your ${r.pick(['annual', '3-year', 'premium'])} subscription has been charged $${amount} and will appear on your statement within 24 hours.`,
        `Order number: ${order}`,
        `Date: ${r.int(1, 28)}/${r.int(1, 12)}/2026`,
        '',
        r.pick([
          `If you did not authorize this charge, call our billing desk at ${phone} to cancel and get a full refund.`,
          `To cancel the renewal and request a refund, contact us within 24 hours at ${phone}.`,
        ]),
        '',
        r.pick(['Thank you for choosing us.', 'Regards,']),
        `${product} Billing Team`,
      ),
    };
  },
};

/** Mail people want that the old model may well think is spam: newsletters, receipts, notices. */
export const HAM_FAMILIES: Record<string, Family> = {
  newsletter(r) {
    const brand = r.pick([
      'Acme Cloud',
      'Northwind Books',
      'Figlet Design',
      'Harbor Coffee',
      'Pixel Weekly',
      'Trailhead Outdoor',
    ]);
    const domain = `${brand.toLowerCase().replace(/\s+/g, '')}.com`;
    const topic = r.pick([
      'product update',
      'monthly digest',
      'new releases',
      'community news',
      'spring collection',
    ]);
    const text = lines(
      `${brand} - ${topic}`,
      '',
      r.pick([`Hi ${r.pick(FIRST)},`, 'Hello,', 'Hi there,']),
      '',
      r.pick([
        `Here is what's new this month: we shipped ${r.int(3, 9)} improvements you asked for, including faster search and dark mode.`,
        `Our ${topic} is here. ${r.int(12, 40)} new titles arrived this week, and our staff picked their favourites for you.`,
        `This season we're introducing a recycled line, made in partnership with local workshops.`,
      ]),
      r.pick([
        `Join our live webinar on ${r.pick(['Tuesday', 'Thursday'])} at ${r.int(1, 5)} pm to see it in action.`,
        `Members get ${r.int(10, 25)}% off until Sunday with the code SPRING${r.int(10, 30)}.`,
        'Read the full story on our blog.',
      ]),
      '',
      `Read more: https://www.${domain}/${r.pick(['blog', 'news', 'updates'])}/${r.int(2024, 2026)}/${word(r)}`,
      '',
      `You are receiving this email because you signed up at ${domain}.`,
      `Manage preferences or unsubscribe: https://www.${domain}/account/email`,
    );
    return {
      family: 'newsletter',
      from: `${brand} <news@${domain}>`,
      subject: r.pick([
        `${brand} ${topic}`,
        `What's new at ${brand}`,
        `Your ${topic} from ${brand}`,
        `${brand}: ${r.int(3, 9)} things we shipped`,
      ]),
      text,
      html: `<html><body><table width="600" align="center"><tr><td style="font-family:Helvetica;color:#333333"><h1>${brand}</h1><p>${text.split('\n\n').slice(2, 4).join('</p><p>')}</p><p><a href="https://www.${domain}/blog">Read more</a></p><p style="font-size:11px;color:#999999"><a href="https://www.${domain}/account/email">Unsubscribe</a></p></td></tr></table></body></html>`,
      headers: {
        'List-Unsubscribe': `<https://www.${domain}/account/email>`,
        'List-Id': `${brand} news <news.${domain}>`,
      },
    };
  },

  receipt(r) {
    const shop = r.pick([
      'Northwind Books',
      'Harbor Coffee',
      'Trailhead Outdoor',
      'City Bikes',
      'Green Grocer',
    ]);
    const domain = `${shop.toLowerCase().replace(/\s+/g, '')}.com`;
    const order = r.int(100000, 999999);
    return {
      family: 'receipt',
      from: `${shop} <orders@${domain}>`,
      subject: r.pick([
        `Your order #${order} has shipped`,
        `Receipt for order ${order}`,
        `Thanks for your order, ${r.pick(FIRST)}`,
      ]),
      text: lines(
        `Hi ${r.pick(FIRST)},`,
        '',
        `Thanks for shopping with ${shop}. Order #${order} (${r.int(1, 4)} items, total ${r.int(12, 180)}.${r.int(10, 99)} EUR) ${r.pick(['is on its way', 'has been confirmed', 'is ready for pickup'])}.`,
        `Track it any time in your account: https://www.${domain}/orders/${order}`,
        '',
        `Questions? Reply to this email or call us on ${r.int(100, 999)} ${r.int(1000, 9999)}.`,
        `${shop}`,
      ),
    };
  },

  colleague(r) {
    const sender = person(r);
    return {
      family: 'colleague',
      from: `${sender} <${sender.toLowerCase().replace(' ', '.')}@acme.example>`,
      subject: r.pick([
        'Notes from today',
        'Re: budget for Q3',
        'Slides for Thursday',
        'Lunch?',
        'Draft proposal',
        'Re: the supplier invoice',
      ]),
      text: lines(
        r.pick([`Hi ${r.pick(FIRST)},`, 'Hi all,', 'Hello team,']),
        '',
        r.pick([
          `Attached are the notes from this morning. The main open point is the ${r.pick(['timeline', 'budget', 'hiring plan'])}; can we settle it on ${r.pick(['Monday', 'Wednesday', 'Friday'])}?`,
          `I went through the draft and left comments on sections ${r.int(2, 4)} and ${r.int(5, 8)}. Mostly small things.`,
          `The supplier sent the corrected invoice, I forwarded it to finance. Nothing else needed from you.`,
        ]),
        r.pick(['Thanks!', 'Cheers,', 'Best,']),
        sender.split(' ')[0] ?? sender,
      ),
      headers: r.chance(0.5) ? { 'In-Reply-To': `<${code(r, 12)}@acme.example>` } : undefined,
    };
  },
};

/** The name a family's messages carry (`giftCard` → "gift card"). */
export const familyName = (families: Record<string, Family>, key: string) =>
  (families[key] as Family)(randomSource(0)).family;

/** `count` messages of these families, in turn, from `seed`. */
export function generate(families: Record<string, Family>, count: number, seed: number): GeneratedMail[] {
  const r = randomSource(seed);
  const list = Object.values(families);
  return Array.from({ length: count }, (_, i) => (list[i % list.length] as Family)(r));
}

/** Quoted-printable (RFC 2045) of UTF-8 text, as mail programs write it: lines of at most 76. */
function quotedPrintable(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let encoded = '';
      for (const byte of Buffer.from(line, 'utf8')) {
        const c = String.fromCharCode(byte);
        encoded +=
          (byte >= 33 && byte <= 126 && c !== '=') || c === ' '
            ? c
            : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }
      encoded = encoded.replace(/ $/, '=20');
      const out: string[] = [];
      while (encoded.length > 76) {
        let cut = 75;
        // Never split an =XX escape.
        while (encoded[cut - 1] === '=' || encoded[cut - 2] === '=') cut--;
        out.push(`${encoded.slice(0, cut)}=`);
        encoded = encoded.slice(cut);
      }
      out.push(encoded);
      return out.join('\r\n');
    })
    .join('\r\n');
}

/** A header value with non-ASCII characters as one encoded word. */
const headerValue = (value: string) =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The message as the gateway receives it (multipart/alternative when it has HTML). */
export function rawOf(mail: GeneratedMail, to: string, i: number): Buffer {
  const domain = mail.from.match(/@([^>]+)>?$/)?.[1] ?? 'sender.example';
  const [, name, address] = mail.from.match(/^(.*?)\s*<([^>]+)>$/) ?? [null, '', mail.from];
  const date = new Date(Date.UTC(2026, 10, 1 + (i % 28), 8 + (i % 10), i % 60));
  const head = [
    `From: ${name ? `"${headerValue(name)}" ` : ''}<${address}>`,
    `To: ${to}`,
    `Subject: ${headerValue(mail.subject)}`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${i}.${mail.family.replace(/\W+/g, '')}.${date.getTime().toString(36)}@${domain}>`,
    'MIME-Version: 1.0',
    ...Object.entries(mail.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  const part = (type: string, body: string) =>
    [
      `Content-Type: ${type}; charset=utf-8`,
      'Content-Transfer-Encoding: quoted-printable',
      '',
      quotedPrintable(body),
    ].join('\r\n');
  if (!mail.html) return Buffer.from(`${[...head, part('text/plain', mail.text)].join('\r\n')}\r\n`);
  const boundary = `--_moat_bench_${i}_${domain.length}`;
  return Buffer.from(
    [
      ...head,
      `Content-Type: multipart/alternative; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      part('text/plain', mail.text),
      `--${boundary}`,
      part('text/html', mail.html),
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  );
}
