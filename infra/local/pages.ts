/**
 * The web application's two account pages, served by the local stack at APP_URL so that emailed links work
 * locally: /verify-email and /reset-password. Each reads the token from its link and spends it with a POST
 * when the person presses the button, never on load and never with a GET: mail scanners that open links
 * (some run scripts) cannot spend a single-use token.
 */
const page = (title: string, body: string, script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}button{font-size:1rem;padding:.5rem 1rem}#result{margin-top:1rem}</style>
</head><body><h1>${title}</h1>${body}<p id="result" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get('token') || '';
const result = document.getElementById('result');
async function post(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body) });
  return { ok: response.ok, body: await response.json().catch(() => ({})) };
}
${script}
</script></body></html>`;

export const verifyEmailPage = page(
  'Verify your email address',
  '<p>Press the button to confirm this address.</p><button id="verify" type="button">Verify my address</button>',
  `document.getElementById('verify').addEventListener('click', async (event) => {
  event.target.disabled = true;
  const { ok, body } = await post('/auth/verify-email', { token });
  result.textContent = ok ? 'Your address is verified. You are signed in.' : 'This link cannot be used: ' + (body.message || 'unknown error') + ' (' + (body.code || 'error') + ')';
  result.dataset.outcome = ok ? body.status : body.code;
});`,
);

export const resetPasswordPage = page(
  'Choose a new password',
  '<label>New password <input id="password" type="password" autocomplete="new-password"></label> <button id="reset" type="button">Set password</button>',
  `document.getElementById('reset').addEventListener('click', async (event) => {
  event.target.disabled = true;
  const { ok, body } = await post('/auth/password-reset/complete', { token, password: document.getElementById('password').value });
  result.textContent = ok ? 'Your password is set. You are signed in.' : (body.message || 'unknown error') + ' (' + (body.code || 'error') + ')';
  result.dataset.outcome = ok ? body.status : body.code;
  if (!ok) event.target.disabled = false;
});`,
);
