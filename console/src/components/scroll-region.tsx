/**
 * A named region that scrolls on its own (a wide table on a phone, a long event list). It takes
 * keyboard focus so people without a mouse can scroll it (WCAG 2.1.1; axe-core's
 * `scrollable-region-focusable`), and its name tells screen readers what it holds.
 */
import type { ComponentChildren } from 'preact';

export function ScrollRegion(props: { label: string; class: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll container must be reachable by keyboard to be scrolled without a mouse.
    <section class={props.class} aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}
