import { describe, expect, it } from 'vitest';
import { translate } from './translate';

const texts = {
  list: {
    items_one: '{{count}} message',
    items_other: '{{count}} messages',
    plain: 'Hello {{ name }}, {{name}}!',
    missing: 'Code {{code}} for {{email}}',
  },
  top: 'Top',
};

describe('translate', () => {
  it('reads nested keys', () => {
    expect(translate(texts, 'top')).toBe('Top');
  });

  it('picks the English plural form for count', () => {
    expect(translate(texts, 'list.items', { count: 1 })).toBe('1 message');
    expect(translate(texts, 'list.items', { count: 0 })).toBe('0 messages');
    expect(translate(texts, 'list.items', { count: 2 })).toBe('2 messages');
    // A key without plural forms is read as it is, count or not.
    expect(translate(texts, 'top', { count: 3 })).toBe('Top');
  });

  it('fills every placeholder and keeps one whose value is missing', () => {
    expect(translate(texts, 'list.plain', { name: 'Ada' })).toBe('Hello Ada, Ada!');
    expect(translate(texts, 'list.missing', { code: 0 })).toBe('Code 0 for {{email}}');
  });

  it('does not escape values (React escapes what it renders)', () => {
    expect(translate(texts, 'list.plain', { name: '<b>' })).toBe('Hello <b>, <b>!');
  });

  it('shows an unknown key, or a key of a whole section, as itself', () => {
    expect(translate(texts, 'list.none')).toBe('list.none');
    expect(translate(texts, 'list')).toBe('list');
    expect(translate(texts, 'top.deeper')).toBe('top.deeper');
  });
});
