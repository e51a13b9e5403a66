import { describe, expect, it } from 'vitest';
import { fillWording, wordingProblem } from './wording.ts';

describe('wordingProblem', () => {
  it('takes plain words, abbreviations and numbers', () => {
    for (const text of [
      '',
      'Careful: check the sender, e.g. call them first.',
      'IT says: this one looks odd, & check twice (3.5 stars).',
      'Held for you: {subject}',
    ])
      expect(wordingProblem(text, 500, ['subject']), text).toBeNull();
  });

  it('refuses what a mail program would make a link of', () => {
    for (const text of [
      'See https://evil.example',
      'see hxxp://x and ftp://files',
      'mailto:help',
      'javascript:alert(1)',
      'Write to help@corp.example',
      'Write to help＠corp．example',
      'Open www.example',
      'Go to intranet.corp.example/help',
      'Go to login。example。com',
      'Server 192.168.1.10',
      '\\\\server\\share',
    ])
      expect(wordingProblem(text, 500), text).toBe('wording_link');
  });

  it('refuses markup, control characters, unknown placeholders and length', () => {
    expect(wordingProblem('<b>x</b>', 500)).toBe('wording_markup');
    expect(wordingProblem('a\nb', 500)).toBe('wording_markup');
    expect(wordingProblem('for {name}', 500, ['subject'])).toBe('wording_placeholder');
    expect(wordingProblem('half {open', 500)).toBe('wording_placeholder');
    expect(wordingProblem('x'.repeat(11), 10)).toBe('wording_too_long');
  });
});

describe('fillWording', () => {
  it('puts each value in its placeholder as text', () => {
    expect(fillWording('{count} held ({period})', { count: '3', period: 'today' })).toBe('3 held (today)');
    expect(fillWording('{subject}', { subject: '{count}' })).toBe('{count}');
  });
});
