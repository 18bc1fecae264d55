import type { Token } from './words.js';

/** A reader's place in a sentence's tokens: what it looks at (`peek`, `word`) and consumes (`i` moves on). */
export class TokenCursor {
  i = 0;

  constructor(readonly tokens: Token[]) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }

  word(offset = 0): string {
    return this.peek(offset)?.lower ?? '';
  }

  /** The longest phrase (up to 4 words) from the current token that `resolve` knows, consumed. */
  phrase<T>(resolve: (text: string) => T | undefined, offset = 0): T | undefined {
    for (let length = 4; length >= 1; length -= 1) {
      const words = this.tokens.slice(this.i + offset, this.i + offset + length);
      if (words.length < length || words.some((t) => t.comma || t.quoted)) continue;
      const found = resolve(words.map((t) => t.text).join(' '));
      if (found !== undefined) {
        this.i += offset + length;
        return found;
      }
    }
    return undefined;
  }
}
