import { describe, expect, it } from 'vitest';
import { contactParts } from '../../../console/src/signup/contact-parts';

describe('OPERATOR_CONTACT as the console shows it', () => {
  it('a name, an e-mail address, a phone number and a URL: the last three as links', () => {
    expect(
      contactParts('Clinic IT Services, help@clinicit.example, (02) 5550-1234 , https://clinicit.example/help'),
    ).toEqual([
      { text: 'Clinic IT Services', href: null },
      { text: 'help@clinicit.example', href: 'mailto:help@clinicit.example' },
      { text: '(02) 5550-1234', href: 'tel:0255501234' },
      { text: 'https://clinicit.example/help', href: 'https://clinicit.example/help' },
    ]);
    expect(contactParts('+61 2 5550 1234')).toEqual([{ text: '+61 2 5550 1234', href: 'tel:+61255501234' }]);
  });

  it('nothing else becomes a link, and empty parts are dropped', () => {
    for (const text of [
      'javascript:alert(1)',
      'data:text/html;<b>x</b>',
      '<a href="x">IT</a>',
      'Level 2',
      'ftp://it.example',
    ]) {
      expect(contactParts(text)).toEqual([{ text, href: null }]);
    }
    expect(contactParts(' , IT Desk ,, ')).toEqual([{ text: 'IT Desk', href: null }]);
  });
});
