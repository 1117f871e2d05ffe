/** A count with its noun as people write it: "1 session", "12,345 sessions", "0 requests". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}
