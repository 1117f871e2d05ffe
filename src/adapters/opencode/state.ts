/**
 * What the OpenCode plugin remembers inside one opencode process: the live agent table (from the `config` callback),
 * each session's current model (from `chat.params`), and the corrections awaiting verification (by callID).
 * Bounded: old sessions and calls are evicted first.
 */
import type { Tier } from '../../contracts/harness.js';

/** `from`: where the agent was configured (agent-files.ts), null when not known. */
export type AgentInfo = { name: string; model: string | null; mode: string | null; from?: string | null };
export type SessionModel = { model: string; agent: string; at: number };
export type PendingCall = {
  sessionId: string;
  requestedAgent: string | null;
  appliedAgent: string | null;
  /** provider/model the applied agent should run on, when known. */
  expectedModel: string | null;
  tier: Tier | null;
  startedAt: number;
};

const MAX_SESSIONS = 512;
const MAX_CALLS = 512;

function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export class OpencodeState {
  agents = new Map<string, AgentInfo>();
  /** The configured default model (`model` in opencode.json), the fallback parent model. */
  defaultModel: string | null = null;
  private sessions = new Map<string, SessionModel>();
  private calls = new Map<string, PendingCall>();

  setSessionModel(sessionId: string, m: SessionModel): void {
    boundedSet(this.sessions, sessionId, m, MAX_SESSIONS);
  }
  sessionModel(sessionId: string): SessionModel | undefined {
    return this.sessions.get(sessionId);
  }
  setPending(callId: string, p: PendingCall): void {
    boundedSet(this.calls, callId, p, MAX_CALLS);
  }
  takePending(callId: string): PendingCall | undefined {
    const p = this.calls.get(callId);
    this.calls.delete(callId);
    return p;
  }
}
