import { domainToASCII } from 'node:url';
import { asciiDomainAddress, domainToAscii } from '../src/validation/idn';
import { badInputVerdict } from '../src/bad-input';

describe('a Unicode domain in its xn-- form (own Punycode, no runtime dependency)', () => {
  test.each([
    ['bücher.de', 'xn--bcher-kva.de'],
    ['BÜCHER.de', 'xn--bcher-kva.de'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['ñandú.com.ar', 'xn--and-6ma2c.com.ar'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ])('%s -> %s, as Node gives it', (unicode, ascii) => {
    expect(domainToAscii(unicode)).toBe(ascii);
    expect(domainToAscii(unicode)).toBe(domainToASCII(unicode));
  });

  test('only a Unicode domain is converted; a Unicode local part has no ASCII form', () => {
    expect(asciiDomainAddress('user@bücher.de')).toBe('user@xn--bcher-kva.de');
    expect(asciiDomainAddress('josé@bücher.de')).toBeUndefined();
    expect(asciiDomainAddress('user@acme.de')).toBeUndefined();
    expect(asciiDomainAddress('a@b@bücher.de')).toBeUndefined();
  });

  test('a cell with a Unicode domain is verified, not a free bad-cell verdict', () => {
    expect(badInputVerdict('user@bücher.de')).toBeUndefined();
    expect(badInputVerdict('josé@acme.de')).toMatchObject({ problem: 'malformed' });
  });
});
