/** A small history router: the current route (from the table in routes.ts) and navigation without a reload. */
import { useEffect, useState } from 'preact/hooks';
import { parseRoute, pathOf, type Route } from './routes.js';

const listeners = new Set<() => void>();

export function navigate(to: Route, options: { replace?: boolean } = {}): void {
  const path = pathOf(to);
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The current route; re-renders on navigation. The query string is part of it (the consent page's request). */
export function useRoute(): Route {
  const here = () => window.location.pathname + window.location.search;
  const [path, setPath] = useState(here);
  useEffect(() => {
    const listener = () => setPath(here());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return parseRoute(path);
}

/** Leaves the console for another address (an OAuth client's redirect URI): a full navigation, not a route. */
export function leaveFor(url: string): void {
  window.location.assign(url);
}
