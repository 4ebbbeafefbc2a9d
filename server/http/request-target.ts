/**
 * The request target (RFC 9112 3.2) as the app may see it. A client may send the absolute form
 * (`GET http://evil.test/console`), which Node passes on as req.url unchanged: anything that builds a URL from it
 * (a redirect's Location, serve-static's trailing-slash redirect, the request log) would carry the other host, or cut
 * the target at the wrong place. This server is no proxy and answers for its own Host only, so the scheme and
 * authority of an absolute-form target are dropped: the app sees the path and query alone.
 */

/** `scheme://authority` at the start of an absolute-form target. */
const SCHEME_AND_AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i;

/** The origin form (path and query) of a request target; origin-form and `*` targets are returned as they are. */
export function originForm(target: string): string {
  const authority = SCHEME_AND_AUTHORITY.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Whether the target's path holds a percent-escape that does not decode (`%ZZ`, a cut `%E0%A4%A`, bytes that are not
 * UTF-8). Express decodes path parameters and static file names with decodeURIComponent, which throws on these: the
 * request is refused as malformed before any route sees it, rather than failing as a server error in one of them.
 */
export function hasUndecodablePath(target: string): boolean {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (!path.includes('%')) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}
