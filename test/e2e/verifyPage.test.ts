import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emailedToken, freshClientIp, newAddress, postAuth, strongPassword } from './accountHelpers.js';
import { mailTo } from './accessHelpers.js';

/**
 * The emailed verification link opened in a real browser (Debian's chromium driven by playwright-core),
 * as a person would: the page must not spend the token on load, and spends it when the person confirms.
 */
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path)) ?? process.env.CHROMIUM_PATH;

/** How long the page may take to show the outcome: a hang guard (expect.poll's default of 1 s is not one on a busy machine). */
const settles = { timeout: 20_000 };

describe('the verification page', () => {
  it('spends the token with a POST when the person confirms, never on opening the link', async () => {
    expect(chromium, 'chromium is needed for this test (.ci/run installs it: apt-get install chromium)').toBeDefined();
    const { chromium: launcher } = await import('playwright-core');
    const address = newAddress('browser');
    const ip = freshClientIp();
    await postAuth('/auth/signup', { email: address, password: strongPassword() }, ip);
    const link = /(http\S+\/verify-email\?token=\S+)/.exec((await mailTo(address)).at(-1)!.text)![1]!;
    const browser = await launcher.launch({ executablePath: chromium!, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const posts: string[] = [];
      page.on('request', (request) => {
        if (request.method() !== 'GET') posts.push(`${request.method()} ${new URL(request.url()).pathname}`);
      });
      await page.goto(link);
      await page.waitForLoadState('networkidle');
      // Opening the link spends nothing: the token still verifies... once.
      expect(posts).toEqual([]);
      await page.getByRole('button', { name: 'Verify my address' }).click();
      await expect.poll(() => page.locator('#result').getAttribute('data-outcome'), settles).toBe('verified');
      expect(await page.locator('#result').textContent()).toContain('verified');
      expect(posts).toEqual(['POST /auth/verify-email']);
      // The session cookie landed in the browser (HttpOnly, so only the cookie jar shows it).
      const cookies = await page.context().cookies();
      expect(cookies.find((cookie) => cookie.name === '__Host-service_session')).toMatchObject({ httpOnly: true, secure: true, path: '/' });
      // Opening the link again: the token is spent.
      await page.goto(link);
      await page.getByRole('button', { name: 'Verify my address' }).click();
      await expect.poll(() => page.locator('#result').getAttribute('data-outcome'), settles).toBe('AUTH_TOKEN_INVALID');
    } finally {
      await browser.close();
    }
    // And the same token is refused over the API too.
    expect((await postAuth('/auth/verify-email', { token: await emailedToken(address, '/verify-email') }, ip)).body.code).toBe('AUTH_TOKEN_INVALID');
  }, 60_000);
});
