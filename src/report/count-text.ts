/** A count with its noun as people write it: "1 session", "12,345 sessions", "0 requests". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}

/**
 * The denials, stopped children and asks under a report (the table's notes and the HTML page's, worded once): "denied: 3
 * (1 by a fan-out limit), of which retried …", "stopped: 1 running child …" and "asked: 2 dispatches …, of which ran
 * (approved): 1". Empty when there were none.
 */
export function refusalTexts(t: {
  denied: number;
  deniedRetried?: number | undefined;
  limitDenied?: number | undefined;
  stopped?: number | undefined;
  asked?: number | undefined;
  askedRan?: number | undefined;
}): string[] {
  const out: string[] = [];
  const n = (x: number) => x.toLocaleString('en-US');
  if (t.denied > 0)
    out.push(
      `denied: ${n(t.denied)}${t.limitDenied ? ` (${n(t.limitDenied)} by a fan-out limit)` : ''}, of which retried on a cheaper model: ${n(t.deniedRetried ?? 0)}, spend avoided: not claimed without usage`,
    );
  if (t.stopped)
    out.push(
      `stopped: ${counted(t.stopped, 'running child', 'running children')} told to stop when a budget ran out (budgets.action "stop"); what each spent until then is in the cost`,
    );
  if (t.asked)
    out.push(
      `asked: ${counted(t.asked, 'dispatch', 'dispatches')} at the permission prompt (an "ask" policy), of which ran (approved): ${n(t.askedRan ?? 0)}`,
    );
  return out;
}
