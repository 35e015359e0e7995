/**
 * The safety-checks view of a trade: `trading_preflight`'s verdicts in the order they ran
 * (passed ✓, the refusal ✗ with its message word for word, the rest not run), and a swap's
 * answer: the order with the checks it passed, or the refusal it got instead.
 */
import { viewPage } from './view-page.js';

const SCRIPT = String.raw`
var root = document.getElementById('view');
var MARKS = { passed: '✓', refused: '✗', not_run: '–' };
function tradeLine(trade) {
  return String(trade.amountIn) + ' ' + String(trade.inputSymbol) + ' → ' + String(trade.expectedOut) + ' ' + String(trade.outputSymbol) +
    ' on ' + String(trade.chain);
}
function verdicts(preflight) {
  var box = el('section', 'checks');
  box.append(el('h1', preflight.passed ? 'passed' : 'refused', preflight.passed ? '✓ Every safety check passed' : '✗ The trade would be refused'));
  var list = el('ul');
  preflight.checks.forEach(function (check) {
    var verdict = MARKS[check.verdict] ? check.verdict : 'not_run';
    var item = el('li', verdict.replace('_', '-'));
    item.dataset.check = String(check.check);
    item.append(el('span', 'mark', MARKS[verdict] + ' '));
    item.append(el('span', 'name', words(check.check)));
    if (verdict === 'refused') {
      item.append(el('div', 'message', check.message));
      if (check.code !== undefined) item.append(el('div', 'code', check.code));
    } else if (verdict === 'not_run') item.append(el('span', 'muted', ' (not run)'));
    list.append(item);
  });
  box.append(list);
  if (preflight.trade) {
    box.append(el('p', null, tradeLine(preflight.trade)));
    box.append(el('p', 'muted', preflight.trade.approval === 'approval_required' ? 'Would wait for approval' : 'Would be placed at once'));
  }
  return box;
}
function order(placed) {
  var box = el('section', 'checks');
  box.append(el('h1', 'passed', '✓ Order ' + words(placed.status)));
  box.append(el('p', null, tradeLine(placed)));
  box.append(el('p', 'muted', 'Order ' + placed.order_id));
  var list = el('ul');
  placed.checks.forEach(function (name) {
    var item = el('li', 'passed');
    item.dataset.check = String(name);
    item.append(el('span', 'mark', '✓ '));
    item.append(el('span', 'name', words(name)));
    list.append(item);
  });
  box.append(list);
  return box;
}
function render(result) {
  root.replaceChildren();
  var data = result.structuredContent;
  if (result.isError) root.append(refusalBox(result));
  else if (data && Array.isArray(data.checks) && typeof data.passed === 'boolean') root.append(verdicts(data));
  else if (data && Array.isArray(data.checks)) root.append(order(data));
  else root.append(el('pre', null, resultText(result)));
}
`;

export const SAFETY_CHECKS_VIEW_HTML = viewPage({
  name: 'safety-checks-view',
  title: 'Safety checks',
  style: '.mark { font-weight: 700; } li .message { margin-left: 1.4em; } li .code { margin-left: 1.4em; }',
  script: SCRIPT,
});
