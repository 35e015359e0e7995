import { interpret } from './agents/command-interpreter.js';
import { readFileSync } from 'node:fs';
const lines = process.argv.slice(2).length ? process.argv.slice(2) : readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const m of lines) { const r = interpret(m); console.log(m.padEnd(48), '→', r.intent === 'unknown' ? 'UNKNOWN: ' + r.reply : JSON.stringify({ i: r.intent, p: r.params, c: r.confidence })); }
