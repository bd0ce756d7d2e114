/**
 * The token `golem serve` printed in the page's address (`#token=…`, or `?token=`). It is
 * kept in sessionStorage for reloads and taken out of the address bar, so it does not end up
 * in the history, a bookmark or a screen share.
 */
const KEY = 'golem.token';

export function takeToken(): string | null {
  const url = new URL(window.location.href);
  const hash = new URLSearchParams(url.hash.replace(/^#/, ''));
  const fromHash = hash.get('token');
  const fromQuery = url.searchParams.get('token');
  const given = fromHash ?? fromQuery;
  if (given !== null && given !== '') {
    sessionStorage.setItem(KEY, given);
    url.searchParams.delete('token');
    // The printed address with `&session=<id>` added: the session stays in the address (session-url.ts), the token goes.
    const session = hash.get('session');
    if (session !== null && session !== '') url.searchParams.set('session', session);
    url.hash = '';
    window.history.replaceState(null, '', url.pathname + url.search);
    return given;
  }
  return sessionStorage.getItem(KEY);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
