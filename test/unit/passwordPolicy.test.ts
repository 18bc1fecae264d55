import { describe, expect, it } from 'vitest';
import { checkPassword, passwordPolicies } from '../../lib/accounts/passwordPolicy.js';

const standard = passwordPolicies.standard;
const nist = passwordPolicies.nist;
const rule = (policy: typeof standard, password: string, email?: string) => checkPassword(policy, password, email)?.rule;

describe('password policy', () => {
  it('accepts strong passwords in both modes', () => {
    expect(rule(standard, 'Tr4ns-Mission;Gear')).toBeUndefined();
    expect(rule(nist, 'correct horse battery staple')).toBeUndefined();
    expect(rule(standard, 'Ünïcödé-Pässw0rt✓x')).toBeUndefined();
  });

  it('enforces lengths in characters', () => {
    expect(rule(standard, 'Ab1!xyzQrst')).toBe('minLength');
    expect(rule(nist, 'a quiet river1')).toBe('minLength');
    expect(rule(standard, `Aa1!${'x'.repeat(253)}`)).toBe('maxLength');
    expect(rule(standard, `Aa1!${'xyzw'.repeat(63)}`)).toBe('repeatedCharacters');
    expect([...'✓'.repeat(12)].length).toBe(12);
  });

  it('requires the four classes only in standard mode; a symbol is anything but letters, digits and whitespace', () => {
    expect(rule(standard, 'all lowercase words 12!')).toBe('uppercase');
    expect(rule(standard, 'ALL UPPERCASE WORDS 12!')).toBe('lowercase');
    expect(rule(standard, 'No Digits In Here!')).toBe('digit');
    expect(rule(standard, 'No Symbols In Here 12')).toBe('symbol');
    expect(rule(standard, 'Spaces Are Not Symbols 1')).toBe('symbol');
    expect(rule(standard, 'Tilde~Counts As One 1')).toBeUndefined();
    expect(rule(nist, 'no classes needed at all here')).toBeUndefined();
  });

  it('refuses common patterns', () => {
    expect(rule(standard, 'Summertime2024!')).toBe('capitalizedWordWithDigits');
    expect(rule(standard, 'Engineering123!!')).toBe('capitalizedWordWithDigits');
    expect(rule(standard, 'Password2024!')).toBe('commonPassword');
    expect(rule(nist, 'iloveyou1234567')).toBe('commonPassword');
    expect(rule(standard, 'Xq!9qwertyZZp')).toBe('keyboardRun');
    expect(rule(nist, 'my pin is 98765 ok go')).toBe('keyboardRun');
    expect(rule(standard, 'Abcdefgh1234!x')).toBe('keyboardRun');
    expect(rule(standard, 'Aaaa-Bearing-7x')).toBe('repeatedCharacters');
    expect(rule(nist, 'abcabcabcabcabcabc'.replace('abc', 'abc'))).toBe('repeatedCharacters');
    expect(rule(standard, 'Ada.Lovelace-1815x', 'ada.lovelace@example.com')).toBe('containsEmail');
  });

  it('refuses a common password hidden by case, digits, symbols, letter substitutions or a letter or two added', () => {
    for (const password of ['password1234!A', 'A!password1234', 'P@ssw0rd!2024x', 'Ilov3y0u!2024Z', '!!Dragon99xZ', '9876-Monkey-!Q', 'Sunsh1ne!!2024ab', 'passwordpassword'.slice(0, 8) + '#2024Zz']) {
      expect(rule(standard, password), password).toBe('commonPassword');
    }
    expect(rule(nist, 'password 1234 !! a b')).toBe('commonPassword');
    // Passwords that merely contain a common word among enough other letters are not refused for it.
    for (const password of ['Tr4ns-Mission;Gear', 'Gear-3f20e1-Tr4in!', 'Gear-9a8c7b-Tr4in!', 'Dragon-Fly;Orbit7', 'Monkey+Wrench=Fix9']) {
      expect(rule(standard, password), password).toBeUndefined();
    }
  });
});
