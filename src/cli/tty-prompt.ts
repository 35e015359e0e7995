/**
 * Asks a question on the terminal and reads the answer without echoing it (a passphrase), as
 * `ssh-keygen` or `gpg` do: the terminal in raw mode, backspace honoured, Ctrl-C refuses.
 */
export function askHidden(question: string): Promise<string> {
  const input = process.stdin;
  return new Promise((resolve, reject) => {
    let answer = '';
    const finish = (outcome: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(() => resolve(answer));
        if (char === '\u0003') return finish(() => reject(new Error('interrupted')));
        answer = char === '\u007f' || char === '\b' ? answer.slice(0, -1) : answer + char;
      }
    };
    process.stderr.write(question);
    input.setEncoding('utf8');
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}
