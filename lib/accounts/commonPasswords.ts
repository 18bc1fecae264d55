/**
 * The words at the root of the most common passwords (from the published breach-frequency lists: "123456",
 * "password", "qwerty", "iloveyou"...), lower-case letters only. A password whose letters are one of these,
 * whatever digits and symbols surround them ("Password2024!"), is refused.
 */
export const commonPasswordWords: ReadonlySet<string> = new Set([
  'password', 'passw', 'passwd', 'passwort', 'motdepasse', 'contraseña', 'qwerty', 'qwertyuiop', 'azerty', 'asdfgh', 'asdfghjkl', 'zxcvbnm',
  'iloveyou', 'admin', 'administrator', 'welcome', 'letmein', 'monkey', 'dragon', 'master', 'sunshine', 'princess', 'football', 'baseball',
  'basketball', 'soccer', 'hockey', 'superman', 'batman', 'trustno', 'shadow', 'michael', 'jennifer', 'jordan', 'hunter', 'ranger',
  'buster', 'thomas', 'tigger', 'robert', 'soccer', 'harley', 'charlie', 'daniel', 'pepper', 'ginger', 'starwars', 'whatever',
  'freedom', 'summer', 'winter', 'spring', 'autumn', 'secret', 'abc', 'abcdef', 'abcdefg', 'login', 'changeme', 'default', 'guest',
  'root', 'test', 'tester', 'testing', 'hello', 'hellothere', 'flower', 'lovely', 'loveme', 'babygirl', 'chocolate', 'cookie', 'cheese',
  'computer', 'internet', 'samsung', 'apple', 'google', 'microsoft', 'killer', 'matrix', 'mustang', 'ferrari', 'porsche', 'corvette',
  'access', 'qazwsx', 'zaq', 'pass', 'user', 'company', 'family', 'friends', 'forever', 'angel', 'beautiful', 'nicole', 'jessica',
  'ashley', 'amanda', 'andrew', 'joshua', 'matthew', 'anthony', 'william', 'liverpool', 'chelsea', 'arsenal', 'barcelona', 'madrid',
  'qwertz', 'mypassword', 'newpassword', 'adminadmin', 'passpass', 'letmeinnow', 'welcomeback', 'iloveu', 'lovelove', 'monday',
  'january', 'december', 'spiderman', 'pokemon', 'minecraft', 'fortnite', 'naruto', 'blink', 'zxcv', 'asdf', 'qwer',
]);
