/**
 * A table of credentials (an agent's or bot's keys, an agent's OAuth grants): columns of text
 * the caller chooses, a creation time read relative with the exact time on hover, and Revoke
 * for those that can still be revoked. One table so both read, stack on a phone and scroll alike.
 */
import type { ComponentChildren } from 'preact';
import { ago, when } from '../format.js';
import { ScrollRegion } from './scroll-region.js';

export interface CredentialColumn<T> {
  header: string;
  cell(row: T): ComponentChildren;
  /** Classes of the cell (`wrap` for long text, `mono` for identifiers). */
  class?: string;
}

export interface CredentialTableProps<T> {
  rows: T[];
  rowKey(row: T): string;
  /** The scroll region's accessible name. */
  label: string;
  /** The table's caption, for screen readers. */
  caption: string;
  columns: CredentialColumn<T>[];
  /** What Revoke names for a screen reader (`Revoke <name>`). */
  nameOf(row: T): string;
  /** Revoke is offered only where this says so (default: every row). */
  revocable?(row: T): boolean;
  onRevoke(row: T): void;
  /** Controls shown before Revoke (a link to the actor inspector). */
  extraActions?(row: T): ComponentChildren;
}

/** A time relative to now, the exact one on hover; `fallback` when there is none. */
export function RelativeTime({ at, fallback = '' }: { at: string | null | undefined; fallback?: string }) {
  return at ? (
    <time dateTime={at} title={when(at)}>
      {ago(at)}
    </time>
  ) : (
    fallback
  );
}

export function CredentialTable<T>(props: CredentialTableProps<T>) {
  return (
    <ScrollRegion class="table-wrap" label={props.label}>
      <table class="stacked">
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.header} class={column.class} data-label={column.header}>
                  {column.cell(row)}
                </td>
              ))}
              <td class="cell-actions">
                {props.extraActions?.(row)}
                {(props.revocable?.(row) ?? true) ? (
                  <button type="button" class="danger" aria-label={`Revoke ${props.nameOf(row)}`} onClick={() => props.onRevoke(row)}>
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
