/** The widget's CSS, scoped by its shadow root: the page's styles cannot reach in, nor these out. */
export const STYLES = `
:host{all:initial}
*{box-sizing:border-box;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
button{font:inherit;cursor:pointer}
button:focus-visible,textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.launcher{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border:0;border-radius:50%;background:#4338ca;color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.3);display:grid;place-items:center;z-index:2147483000}
.launcher svg{width:28px;height:28px;fill:currentColor}
.panel{position:fixed;right:20px;bottom:88px;width:370px;height:min(560px,calc(100vh - 108px));display:flex;flex-direction:column;background:#fff;color:#111827;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.25);overflow:hidden;z-index:2147483001;font-size:15px;line-height:1.4}
header{display:flex;align-items:center;gap:8px;padding:12px 12px 12px 16px;background:#4338ca;color:#fff}
h2{margin:0;flex:1;font-size:16px;font-weight:600}
header button{border:1px solid rgba(255,255,255,.6);background:transparent;color:#fff;border-radius:8px;padding:4px 10px;font-size:13px}
header .close{border:0;font-size:22px;line-height:1;padding:2px 8px}
.wallets{display:flex;flex-wrap:wrap;align-items:center;gap:8px;padding:10px 12px;background:#eef2ff;color:#1e1b4b;border-bottom:1px solid #c7d2fe;font-size:14px}
.wallets span{margin-right:auto}
.wallets button{border:1px solid #4338ca;background:#fff;color:#3730a3;border-radius:8px;padding:5px 10px;font-size:13px}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:8px;background:#f9fafb}
.msg{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;word-wrap:break-word}
.user{align-self:flex-end;background:#4338ca;color:#fff;border-bottom-right-radius:4px}
.user.unsent{background:#fff;color:#3730a3;border:1px dashed #4338ca}
.bot{align-self:flex-start;background:#e5e7eb;border-bottom-left-radius:4px}
.note{align-self:center;background:none;color:#4b5563;font-size:13px;text-align:center}
.fail{align-self:flex-start;background:#fee2e2;color:#991b1b}
.notice{padding:14px 16px;background:#fef3c7;color:#78350f;border-top:1px solid #fcd34d}
.notice p{margin:0 0 8px}
.notice button,form button{border:0;border-radius:8px;background:#4338ca;color:#fff;padding:8px 14px}
form{display:flex;gap:8px;padding:10px;border-top:1px solid #e5e7eb;background:#fff}
textarea{flex:1;resize:none;border:1px solid #9ca3af;border-radius:8px;padding:8px 10px;font:inherit;color:inherit;background:#fff;min-height:40px;max-height:120px}
form button:disabled{background:#9ca3af;cursor:default}
@media (max-width:480px){.panel{inset:0;width:auto;height:auto;border-radius:0}.launcher{right:14px;bottom:14px}}
`;
