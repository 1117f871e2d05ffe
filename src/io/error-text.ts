/** An error as one line for a diagnostic: its name and message, never its stack (which can quote paths and input). */
export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
