import { commonPasswordWords } from './commonPasswords.js';

/** Password policy of the account routes (spec: Password policy). Chosen per deployment with PASSWORD_POLICY. */
export type PasswordPolicyMode = 'standard' | 'nist';

export interface PasswordPolicy {
  mode: PasswordPolicyMode;
  minLength: number;
  maxLength: number;
  /** Lowercase, uppercase, digit and symbol each required. */
  requireClasses: boolean;
}

export const passwordPolicies: Record<PasswordPolicyMode, PasswordPolicy> = {
  standard: { mode: 'standard', minLength: 12, maxLength: 256, requireClasses: true },
  nist: { mode: 'nist', minLength: 15, maxLength: 256, requireClasses: false },
};

export function passwordPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): PasswordPolicy {
  const mode = env.PASSWORD_POLICY ?? 'standard';
  if (mode !== 'standard' && mode !== 'nist') throw new Error(`PASSWORD_POLICY must be standard or nist, not "${mode}"`);
  return passwordPolicies[mode];
}

/** The rule a refused password broke, named in the refusal's message. */
export type PasswordRule =
  | 'minLength'
  | 'maxLength'
  | 'lowercase'
  | 'uppercase'
  | 'digit'
  | 'symbol'
  | 'capitalizedWordWithDigits'
  | 'keyboardRun'
  | 'repeatedCharacters'
  | 'commonPassword'
  | 'containsEmail';

export interface PasswordRefusal {
  rule: PasswordRule;
  message: string;
}

/** Rows and sequences whose runs are easy to guess: keyboard rows (QWERTY, AZERTY), digits, the alphabet. */
const sequences = [
  'qwertyuiop',
  'asdfghjkl',
  'zxcvbnm',
  'azertyuiop',
  'qsdfghjklm',
  'wxcvbn',
  'qwertzuiop',
  'yxcvbnm',
  '1234567890',
  'abcdefghijklmnopqrstuvwxyz',
  'qaz',
  'wsx',
  'edc',
  'rfv',
  'tgb',
  'yhn',
  'ujm',
];
/** A run of this many consecutive keys (forwards or backwards) makes a password guessable. */
export const keyboardRunLength = 5;

function keyboardRun(lower: string): string | undefined {
  for (const row of sequences) {
    for (const line of [row, [...row].reverse().join('')]) {
      for (let start = 0; start + keyboardRunLength <= line.length; start += 1) {
        const run = line.slice(start, start + keyboardRunLength);
        if (lower.includes(run)) return run;
      }
    }
  }
  return undefined;
}

/**
 * A unit of 1 to 4 characters 4 or more times in a row ("aaaa", "abababab"), ignoring case, or the whole
 * password one unit repeated ("hello!hello!hello!").
 */
function longRepeat(password: string): boolean {
  if (/(.{1,4}?)\1{3,}/su.test(password.toLowerCase())) return true;
  const chars = [...password];
  for (let unit = 1; unit <= Math.floor(chars.length / 3); unit += 1) {
    if (chars.length % unit !== 0) continue;
    const head = chars.slice(0, unit).join('');
    if (head.repeat(chars.length / unit) === password) return true;
  }
  return false;
}

/** Leet substitutions undone inside a word ("P@ssw0rd" -> "password"). */
const leet: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a', $: 's', '!': 'i', '|': 'l', '+': 't' };

/**
 * The common password a password is built on, if any: its letters, case-folded and with leet substitutions
 * between letters undone, are a common word with at most 2 letters added, everything else being digits,
 * symbols and whitespace ("password1234!A", "P@ssw0rd!2024", "!!Dragon99xy"). Words of 4 letters or more
 * are looked for inside; shorter ones only as the whole.
 */
function commonWordIn(lower: string): string | undefined {
  const unleeted = lower.replace(/(?<=\p{L})[01345789@$!|+]+(?=\p{L})/gu, (run) => [...run].map((c) => leet[c] ?? c).join(''));
  // Both readings: digits between letters may be substitutions ("p@ssw0rd") or padding ("Dragon99x").
  for (const text of [lower, unleeted]) {
    const letters = [...text.replace(/[^\p{L}]/gu, '')];
    const whole = letters.join('');
    if (commonPasswordWords.has(whole)) return whole;
    for (let length = letters.length - 1; length >= Math.max(4, letters.length - 2); length -= 1) {
      for (let start = 0; start + length <= letters.length; start += 1) {
        const word = letters.slice(start, start + length).join('');
        if (commonPasswordWords.has(word)) return word;
      }
    }
  }
  return undefined;
}

/**
 * Checks a password against the policy; the first rule broken, or undefined when it is accepted. Lengths
 * count characters (code points), not bytes. `email` lets the check refuse passwords built on the address.
 */
export function checkPassword(policy: PasswordPolicy, password: string, email?: string): PasswordRefusal | undefined {
  const length = [...password].length;
  if (length < policy.minLength) return { rule: 'minLength', message: `The password must be at least ${policy.minLength} characters long` };
  if (length > policy.maxLength) return { rule: 'maxLength', message: `The password must be at most ${policy.maxLength} characters long` };
  if (policy.requireClasses) {
    if (!/\p{Ll}/u.test(password)) return { rule: 'lowercase', message: 'The password must contain a lowercase letter' };
    if (!/\p{Lu}/u.test(password)) return { rule: 'uppercase', message: 'The password must contain an uppercase letter' };
    if (!/\p{Nd}/u.test(password)) return { rule: 'digit', message: 'The password must contain a digit' };
    if (!/[^\p{L}\p{N}\s]/u.test(password)) return { rule: 'symbol', message: 'The password must contain a symbol (any character that is not a letter, a digit or whitespace)' };
  }
  const lower = password.toLowerCase();
  const letters = lower.replace(/[^\p{L}]/gu, '');
  if (commonPasswordWords.has(letters) || commonPasswordWords.has(lower)) {
    return { rule: 'commonPassword', message: 'The password is one of the most common passwords (or one with digits and symbols around it)' };
  }
  if (/^\p{Lu}\p{Ll}+(?=[^\p{L}]*\p{Nd})[^\p{L}\s]+$/u.test(password)) {
    return { rule: 'capitalizedWordWithDigits', message: 'The password is a capitalized word followed by digits and punctuation, a pattern guessed first' };
  }
  const run = keyboardRun(lower);
  if (run) return { rule: 'keyboardRun', message: `The password contains the keyboard or alphabet run "${run}"` };
  if (longRepeat(password)) return { rule: 'repeatedCharacters', message: 'The password repeats a character or a short sequence' };
  const word = commonWordIn(lower);
  if (word) return { rule: 'commonPassword', message: `The password is built on the common password "${word}" (case, digits, symbols, letter substitutions and a letter or two added do not hide it)` };
  const local = email?.split('@')[0]?.toLowerCase();
  if (local && local.length >= 4 && lower.includes(local)) return { rule: 'containsEmail', message: 'The password contains your email address' };
  return undefined;
}
