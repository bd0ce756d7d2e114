/**
 * Who made a request, as the handler's `user` hook said (createGolemHandler's `user`
 * option): set once by the handler before any route runs, read by every route that scopes
 * what it shows or changes to that user. null: the server has no users (one person's
 * `golem serve`), and every session is theirs.
 */
import { GolemError } from '../core/errors.js';

const users = new WeakMap<Request, string | null>();

export function setRequestUser(request: Request, user: string | null): void {
  users.set(request, user);
}

/** The request's user; INTERNAL for a request the handler never saw (a route reached another way must say who asks). */
export function requestUser(request: Request): string | null {
  const user = users.get(request);
  if (user === undefined) throw new GolemError('INTERNAL', 'a route read the user of a request the handler did not see');
  return user;
}
