/**
 * Who made a request, as the handler's `user` hook said (createGolemHandler's `user`
 * option): set once by the handler before any route runs, read by every route that scopes
 * what it shows or changes to that user. null: the server has no users (one person's
 * `golem serve`), and every session is theirs.
 */
const users = new WeakMap<Request, string | null>();

export function setRequestUser(request: Request, user: string | null): void {
  users.set(request, user);
}

export function requestUser(request: Request): string | null {
  return users.get(request) ?? null;
}
