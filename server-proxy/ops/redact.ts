/**
 * Keeps the persistent key out of logs and out of anything relayed to the page.
 */

const MARK = '[redacted]';

/** Replaces every occurrence of each secret in `text`. Secrets shorter than 8 characters are not looked for. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(MARK);
  return out;
}

/** Renders a log argument as text: an Error as its name, message and stack, anything else as JSON or itself. */
function show(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}${value.cause === undefined ? '' : ` (cause: ${show(value.cause)})`}\n${value.stack ?? ''}`;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A log sink that never writes `secrets`: each message is rendered to text and redacted before `write`. */
export function redactingLog(secrets: readonly string[], write: (line: string) => void = (line) => console.error(line)): (...args: unknown[]) => void {
  return (...args) => write(redact(args.map(show).join(' '), secrets));
}
