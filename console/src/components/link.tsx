/** A link to a console route that navigates without reloading (the session lives in memory); a modified click opens it as the browser would. */
import type { ComponentChildren } from 'preact';
import { navigate } from '../router.js';
import { pathOf, type Route } from '../routes.js';

export function Link(props: { to: Route; class?: string; current?: boolean; label?: string; children: ComponentChildren }) {
  const path = pathOf(props.to);
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={path} class={props.class} aria-label={props.label} aria-current={props.current ? 'page' : undefined} onClick={follow}>
      {props.children}
    </a>
  );
}
