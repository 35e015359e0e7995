/** A consent page's message instead of the form: the request is gone, unreadable, or decided. */
import type { ComponentChildren } from 'preact';

export function ConsentNotice(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="card consent" aria-labelledby="consent-notice-title">
      <h1 id="consent-notice-title">{props.title}</h1>
      {props.children}
    </section>
  );
}
