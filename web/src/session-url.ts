/**
 * The open session in the page's address (`?session=<id>`), so a reload, back and forward, and
 * a link (the address golem serve printed, with `&session=<id>` or `?session=<id>` added) open
 * that session. The token never goes there: auth.ts takes it out of the address and keeps the rest.
 */
const PARAM = 'session';

export function sessionInUrl(): string | null {
  const id = new URL(window.location.href).searchParams.get(PARAM);
  return id === null || id === '' ? null : id;
}

/**
 * Puts `id` in the address: `push` adds a history entry (the user opened a session), `replace`
 * does not (the page chose one for them, or the one asked for is gone).
 */
export function showSessionInUrl(id: string | null, how: 'push' | 'replace'): void {
  if (sessionInUrl() === id) return;
  const url = new URL(window.location.href);
  if (id === null) url.searchParams.delete(PARAM);
  else url.searchParams.set(PARAM, id);
  const address = url.pathname + url.search + url.hash;
  if (how === 'push') window.history.pushState(null, '', address);
  else window.history.replaceState(null, '', address);
}
