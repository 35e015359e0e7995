/**
 * The embeddable chat widget of a legacy bot (the legacy routes): a site adds
 * `<script src="https://<service>/api/widget/<botId>/script.js" async></script>` and gets a
 * launcher button and a chat panel in a shadow root. The script learns the bot and the service
 * from its own address. A session starts when the panel first opens; an expired one asks to
 * start again. The owner can sign in with a wallet to trade.
 */
import { WidgetApi, WidgetError } from './api.js';
import { STYLES } from './styles.js';
import { signInWithWallet, type WalletChain, walletChains } from './wallet.js';

const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
const TEXT = {
  refused: 'This chat is not available on this site.',
  expired: 'Your chat session has ended. Start again to keep chatting.',
  expiredUnsent: 'Your chat session has ended. Start again to send your message.',
  unreachable: 'The chat could not start. Please try again.',
};

function boot(script: HTMLScriptElement): void {
  const src = new URL(script.src);
  const match = /^\/api\/widget\/([^/]+)\/script\.js$/.exec(src.pathname);
  if (!match) return;
  const api = new WidgetApi(`${src.origin}/api/widget/${match[1]}`);
  const title = script.dataset.title ?? 'Chat';

  const host = document.createElement('div');
  host.setAttribute('data-agent-chat-widget', '');
  // The page's CSS can still target the host element itself: keep it displayed.
  host.style.setProperty('display', 'block', 'important');
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `<style>${STYLES}</style>
<button class="launcher" type="button" aria-label="Open chat" aria-expanded="false" aria-controls="panel">${ICON}</button>
<section class="panel" id="panel" role="dialog" aria-labelledby="title" hidden>
<header><h2 id="title"></h2><button class="signin" type="button" aria-controls="wallets" hidden>Owner sign-in</button><button class="close" type="button" aria-label="Close chat">×</button></header>
<div class="wallets" id="wallets" role="group" aria-labelledby="wallets-label" hidden><span id="wallets-label">Sign in with</span><button type="button" data-chain="solana">Solana wallet</button><button type="button" data-chain="evm">Ethereum wallet</button></div>
<div class="log" role="log" aria-live="polite" aria-label="Conversation" tabindex="0"></div>
<div class="notice" role="alert" hidden><p></p><button type="button"></button></div>
<form><label class="sr" for="msg">Message</label><textarea id="msg" rows="1" placeholder="Type a message…" maxlength="4000"></textarea><button type="submit">Send</button></form>
</section>`;
  const $ = <T extends Element>(selector: string) => root.querySelector(selector) as T;
  const launcher = $<HTMLButtonElement>('.launcher');
  const panel = $<HTMLElement>('.panel');
  const log = $<HTMLElement>('.log');
  const notice = $<HTMLElement>('.notice');
  const noticeButton = $<HTMLButtonElement>('.notice button');
  const form = $<HTMLFormElement>('form');
  const input = $<HTMLTextAreaElement>('textarea');
  const send = $<HTMLButtonElement>('form button');
  const signin = $<HTMLButtonElement>('.signin');
  $<HTMLElement>('h2').textContent = title;
  const wallets = $<HTMLElement>('.wallets');
  signin.hidden = walletChains().length === 0;

  const add = (text: string, kind: 'user' | 'bot' | 'note' | 'fail'): HTMLElement => {
    const item = document.createElement('div');
    item.className = `msg ${kind}`;
    item.textContent = text;
    log.append(item);
    log.scrollTop = log.scrollHeight;
    return item;
  };
  const setBusy = (busy: boolean) => {
    send.disabled = busy;
    input.setAttribute('aria-busy', String(busy));
  };
  /** A notice in place of the message box; `action` names its button, `null` for none (nothing to try again). */
  const showNotice = (text: string | undefined, action: string | null = 'Try again') => {
    notice.hidden = text === undefined;
    form.hidden = text !== undefined;
    if (text === undefined) return;
    $<HTMLElement>('.notice p').textContent = text;
    noticeButton.hidden = action === null;
    noticeButton.textContent = action ?? '';
    if (action !== null) noticeButton.focus();
  };

  // The session being started, if any: a message typed meanwhile waits for it instead of being dropped.
  let starting: Promise<boolean> | undefined;
  const start = (): Promise<boolean> => {
    starting ??= (async () => {
      setBusy(true);
      try {
        await api.init();
        showNotice(undefined);
        return true;
      } catch (error) {
        const refused = error instanceof WidgetError && error.failure.kind === 'refused';
        // This site is not on the bot's allowed origins: trying again gets the same refusal.
        showNotice(refused ? TEXT.refused : TEXT.unreachable, refused ? null : 'Try again');
        return false;
      } finally {
        setBusy(false);
        starting = undefined;
      }
    })();
    return starting;
  };

  /**
   * A message the service refused because the session had ended (401: refused before the chat
   * ran, so nothing of it happened): sent once on the next session, under its id. A message
   * whose answer was lost otherwise (the network) may have run, and is never sent again.
   */
  let unsent: { text: string; id: string; item: HTMLElement } | undefined;

  const fail = (error: unknown) => {
    if (error instanceof WidgetError && error.failure.kind === 'expired') {
      showNotice(unsent ? TEXT.expiredUnsent : TEXT.expired, 'Start again');
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    add(message, 'fail');
    api.event('error', message);
  };

  const open = async (show: boolean) => {
    panel.hidden = !show;
    launcher.setAttribute('aria-expanded', String(show));
    launcher.setAttribute('aria-label', show ? 'Close chat' : 'Open chat');
    if (!show) {
      api.event('close');
      launcher.focus();
      return;
    }
    input.focus();
    if (api.started || (await start())) {
      api.event('open');
      // Starting the session takes a round trip: focus it lost meanwhile returns to the message
      // box, but a person who moved it (to the owner sign-in's wallet choice, or back to the
      // page) keeps it where they put it.
      const nowhere = document.activeElement === null || document.activeElement === document.body;
      if (root.activeElement === null && nowhere) input.focus();
    }
  };

  launcher.addEventListener('click', () => void open(panel.hidden));
  $<HTMLButtonElement>('.close').addEventListener('click', () => void open(false));
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') void open(false);
  });
  noticeButton.addEventListener('click', async () => {
    if (await start()) {
      add('New session started.', 'note');
      const waiting = unsent;
      unsent = undefined;
      if (waiting) {
        // Read in the order things happen: the new session, then the message it carries, then the reply.
        log.append(waiting.item);
        await deliver(waiting.text, waiting.id, waiting.item);
      }
      input.focus();
    }
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  let sending = false;
  /** Sends one message shown as `item`; on a 401 it is kept as `unsent` (see there). */
  const deliver = async (text: string, id: string, item: HTMLElement) => {
    sending = true;
    setBusy(true);
    item.classList.remove('unsent');
    try {
      const answer = await api.chat(text, id);
      add(answer.reply, 'bot');
      api.event('message_shown');
    } catch (error) {
      if (error instanceof WidgetError && error.failure.kind === 'expired') {
        unsent = { text, id, item };
        item.classList.add('unsent');
      }
      fail(error);
    } finally {
      sending = false;
      setBusy(false);
    }
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || sending) return;
    if (starting && !(await starting)) return;
    input.value = '';
    await deliver(text, `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`, add(text, 'user'));
    input.focus();
  });
  const showWallets = (show: boolean) => {
    wallets.hidden = !show;
    signin.setAttribute('aria-expanded', String(show));
  };
  const signInWith = async (chain: WalletChain) => {
    if (!wallets.hidden) showWallets(false);
    signin.disabled = true;
    try {
      await signInWithWallet(api, chain);
      signin.hidden = true;
      add('Signed in as the owner: trading commands will run.', 'note');
    } catch (error) {
      fail(error);
    } finally {
      signin.disabled = false;
      // The chooser's button that had focus is gone: back to the message box.
      input.focus();
    }
  };
  signin.addEventListener('click', () => {
    const chains = walletChains();
    // One wallet: it signs. Both kinds (one extension may inject both): the owner says which one owns the bot.
    if (chains.length === 1 && chains[0]) void signInWith(chains[0]);
    else if (chains.length > 1) {
      showWallets(wallets.hidden);
      if (!wallets.hidden) wallets.querySelector('button')?.focus();
    }
  });
  wallets.querySelectorAll<HTMLButtonElement>('button[data-chain]').forEach((button) => {
    button.addEventListener('click', () => void signInWith(button.dataset.chain === 'evm' ? 'evm' : 'solana'));
  });

  document.body.append(host);
}

const current = document.currentScript;
if (current instanceof HTMLScriptElement) {
  if (document.body) boot(current);
  else document.addEventListener('DOMContentLoaded', () => boot(current));
}
