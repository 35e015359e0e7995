/**
 * The portfolio view: what `trading_portfolio_summary` answers (status, total value,
 * positions) and the value line of `trading_portfolio_history` as an inline SVG chart. On a
 * summary, a host that proxies tool calls is asked for the history too, so the chart shows
 * beside the positions; a host that does not shows the positions alone.
 */
import { viewPage } from './view-page.js';

const SCRIPT = String.raw`
var root = document.getElementById('view');
function money(value) { return '$' + String(value); }
function chart(history) {
  var box = el('section', 'chart');
  box.append(el('h2', null, 'Value over time'));
  var points = (Array.isArray(history.points) ? history.points : []).map(function (point) {
    return { at: Date.parse(point.at), value: Number(point.valueUsd), label: point.valueUsd };
  }).filter(function (point) { return isFinite(point.at) && isFinite(point.value); });
  if (points.length === 0) { box.append(el('p', 'muted', 'No readings in this range.')); return box; }
  var width = 600, height = 180, pad = 8;
  var minAt = points[0].at, maxAt = points[points.length - 1].at;
  var values = points.map(function (point) { return point.value; });
  var low = Math.min.apply(null, values), high = Math.max.apply(null, values);
  var x = function (at) { return maxAt === minAt ? width / 2 : pad + ((at - minAt) / (maxAt - minAt)) * (width - 2 * pad); };
  var y = function (value) { return high === low ? height / 2 : height - pad - ((value - low) / (high - low)) * (height - 2 * pad); };
  var figure = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, width: '100%', role: 'img', class: 'value-chart' });
  var title = svg('title', {});
  title.textContent = 'Portfolio value from ' + points[0].label + ' to ' + points[points.length - 1].label + ' USD';
  figure.append(title);
  figure.append(svg('polyline', {
    fill: 'none', stroke: 'currentColor', 'stroke-width': 2,
    points: points.map(function (point) { return x(point.at).toFixed(1) + ',' + y(point.value).toFixed(1); }).join(' '),
  }));
  points.forEach(function (point) { figure.append(svg('circle', { cx: x(point.at).toFixed(1), cy: y(point.value).toFixed(1), r: 2.5, fill: 'currentColor' })); });
  box.append(figure);
  var range = el('p', 'muted');
  range.textContent = points.length + ' readings · low ' + money(low.toFixed(2)) + ' · high ' + money(high.toFixed(2));
  box.append(range);
  return box;
}
function summary(portfolio) {
  var box = el('section', 'summary');
  box.append(el('h1', null, portfolio.name));
  box.append(el('p', 'total', 'Total value ' + money(portfolio.valueUsd)));
  box.append(el('p', 'muted', words(portfolio.status) + ' · trading ' + (portfolio.tradingEnabled ? 'enabled' : 'disabled') +
    ' · ' + portfolio.openOrders + ' open orders · as of ' + portfolio.asOf));
  var positions = Array.isArray(portfolio.positions) ? portfolio.positions : [];
  if (positions.length === 0) { box.append(el('p', 'muted', 'No positions yet.')); return box; }
  var table = el('table', 'positions');
  var head = el('tr');
  ['Token', 'Chain', 'Amount', 'Value (USD)'].forEach(function (name, index) { head.append(el('th', index > 1 ? 'num' : null, name)); });
  table.append(head);
  positions.forEach(function (position) {
    var row = el('tr');
    row.append(el('td', 'token', position.symbol || position.token));
    row.append(el('td', null, position.chain));
    row.append(el('td', 'num', position.amount));
    row.append(el('td', 'num', position.valueUsd === undefined ? '–' : position.valueUsd));
    table.append(row);
  });
  box.append(table);
  return box;
}
function render(result) {
  root.replaceChildren();
  if (result.isError) { root.append(refusalBox(result)); return; }
  var data = result.structuredContent;
  if (!data || typeof data !== 'object') { root.append(el('pre', null, resultText(result))); return; }
  if (Array.isArray(data.points)) { root.append(chart(data)); return; }
  root.append(summary(data));
  callTool('trading_portfolio_history', {}).then(function (history) {
    if (history && !history.isError && history.structuredContent) root.append(chart(history.structuredContent));
  });
}
`;

export const PORTFOLIO_VIEW_HTML = viewPage({
  name: 'portfolio-view',
  title: 'Portfolio',
  style: '.total { font-size: 18px; font-weight: 600; margin: 4px 0; } .value-chart { color: var(--color-text-info, #1a73e8); }',
  script: SCRIPT,
});
