/** A 6-digit authenticator code field: numeric keyboard, the browser's one-time-code autofill, spaces dropped. */
export function CodeInput(props: { label: string; value: string; onInput(code: string): void }) {
  return (
    <label>
      {props.label}
      <input
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="\d{6}"
        maxLength={6}
        required
        value={props.value}
        onInput={(event) => props.onInput(event.currentTarget.value.trim())}
      />
    </label>
  );
}
