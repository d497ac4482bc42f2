/**
 * The console's two pages, fixed markup with no inline script or style (the CSP allows only
 * `/ui/app.js` and `/ui/app.css`): the live console, whose sections the script fills from
 * `/ui/events`, and the login form, which works without script. Nothing dynamic is written into
 * either but a message chosen from a fixed set, so there is nothing to escape.
 */

const HEAD = (title: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="/ui/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/app.css">`;

/** Each section: its heading, and a region the script fills (focusable, so a wide table scrolls by keyboard). */
const section = (id: string, title: string, note = '') =>
  `<section aria-labelledby="h-${id}">
<h2 id="h-${id}">${title}</h2>${note === '' ? '' : `\n<p class="note">${note}</p>`}
<div class="scroll" id="${id}" role="region" aria-labelledby="h-${id}" tabindex="0"><p class="empty">Waiting for the first picture…</p></div>
</section>`;

export function consolePage(signedIn: boolean): string {
  const signOut = signedIn ? '\n<form method="post" action="/ui/logout"><button type="submit">Sign out</button></form>' : '';
  return `${HEAD('pgw console')}
<script src="/ui/app.js" defer></script>
</head>
<body>
<header>
<h1>pgw console</h1>
<p id="status" role="status">Connecting…</p>
<p id="updated"></p>${signOut}
</header>
<main>
<noscript><p class="problem">The live view needs JavaScript (served by this server, nothing from elsewhere). <a href="/ui/state">/ui/state</a> answers the same picture as JSON.</p></noscript>
<section aria-labelledby="h-activity">
<h2 id="h-activity">Calls handled here</h2>
<p class="note">This process's own calls over the last five minutes, in 5-second steps.</p>
<div class="charts" id="charts"></div>
</section>
${section('sources', 'Sources', 'Breakers and quota use are the governance’s books (the whole fleet’s on Redis); “in flight here” and recent errors are this process’s own.')}
${section('tenants', 'Tenants', 'Use of each tenant’s bounds, per scope: the tenants of the server’s keys and of recent calls.')}
${section('budgets', 'Spend budgets')}
${section('failures', 'Recent failed calls here', 'Time, scope, source, error class and call id: never a prompt, an answer or a key.')}
${section('keys', 'Keys', 'The stored API keys (never a key, only its first characters), their use against their bounds and their budget spent.')}
<p id="keys-message" class="note" role="status"></p>
<div id="panels"></div>
</main>
<dialog id="revoke-dialog" aria-labelledby="revoke-title">
<form method="dialog">
<h2 id="revoke-title">Revoke a key</h2>
<p id="revoke-question"></p>
<p class="actions"><button type="submit" value="cancel" autofocus>Cancel</button> <button type="submit" value="revoke" class="danger">Revoke</button></p>
</form>
</dialog>
</body>
</html>
`;
}

/** Why the last login was refused, from a fixed set. */
export const LOGIN_PROBLEMS = ['refused', 'throttled', 'closed'] as const;
export type LoginProblem = (typeof LOGIN_PROBLEMS)[number];

const PROBLEM_TEXT: Readonly<Record<LoginProblem, string>> = {
  refused: 'That is not an admin key. Tenant API keys do not open the console.',
  throttled: 'Too many failed sign-ins: try again in a minute.',
  closed: 'This server has no admin keys (PGW_SERVER__ADMIN_KEYS), so its console stays closed.',
};

export function loginPage(problem?: LoginProblem): string {
  const alert = problem === undefined ? '' : `\n<p class="problem" role="alert">${PROBLEM_TEXT[problem]}</p>`;
  return `${HEAD('Sign in · pgw console')}
</head>
<body>
<main class="login">
<h1>pgw console</h1>${alert}
<form method="post" action="/ui/login">
<label for="key">Admin key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
<p class="note">An admin key of <code>PGW_SERVER__ADMIN_KEYS</code>. The session lasts until <code>PGW_SERVER__CONSOLE_SESSION_S</code> ends it (8 hours by default), in a cookie only this console reads.</p>
</main>
</body>
</html>
`;
}

export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/><path d="M4 11V5h4a2 2 0 0 1 0 4H4" fill="none" stroke="#fff" stroke-width="1.6"/></svg>';
