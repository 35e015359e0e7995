/** Client events a bot's widgets reported, newest first (stacked rows on phones). */
import type { BotWidgetEventsOutput } from 'agent-runtime-sdk';
import { when, words } from '../format.js';
import { ScrollRegion } from './scroll-region.js';

export function WidgetEventsTable({ events }: { events: BotWidgetEventsOutput['events'] }) {
  return (
    <ScrollRegion class="table-wrap" label="Widget events">
      <table class="stacked">
        <caption class="sr-only">Client events the widget sent, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Detail</th>
            <th scope="col">Origin</th>
            <th scope="col">Session</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event, index) => (
            <tr key={`${event.at}-${event.session}-${index}`}>
              <td data-label="Time">
                <time dateTime={event.at}>{when(event.at)}</time>
              </td>
              <th scope="row" data-label="Event">
                {words(event.type)}
              </th>
              <td data-label="Detail">{event.detail ?? '—'}</td>
              <td data-label="Origin" class="mono">
                {event.origin}
              </td>
              <td data-label="Session" class="mono">
                {event.session}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
