/**
 * What a target (docs/forward.md) answered when a forwarded action or a callback was handed to it,
 * as the runtime classifies it and the store keeps it with the run (`runs.handoff`). The targets
 * (src/forward/) produce these; the runtime and the views read them.
 */

/** One POST to a target, classified: taken, worth trying again, or refused for good. */
export type TargetAnswer =
  /** 2xx: the target took it. `runId` is the target's own run id when it returned one. */
  | { kind: 'accepted'; status: number; runId?: string; outcome?: DownstreamOutcome; notes?: string[] }
  /** Unreachable, timed out, 408/409/425/429 or 5xx: sent again later (`retryAfterMs`: the target's Retry-After). */
  | { kind: 'retry'; status?: number; retryAfterMs?: number; reason: string }
  /** Any other answer (400, 401, 403, 404, 413, 422, a redirect, …): the request is wrong; the run ends with it. */
  | { kind: 'refused'; status: number; reason: string };

/** What the target said of the run it started, when it can tell (OpenClaw's `waitForCompletion`). */
export interface DownstreamOutcome {
  status: string;
  /** The target's other facts as it gave them (OpenClaw: replyDisposition, delivered, …), never a reply text. */
  facts?: Record<string, string | number | boolean>;
}

/** The handoff of a run as stored and shown (`RunView.handoff`): where it went and the last answer. */
export interface HandoffRecord {
  target: string;
  /** The target's HTTP status of the last attempt, when it answered. */
  status?: number;
  /** The target's own run id. */
  runId?: string;
  outcome?: DownstreamOutcome;
  /** Why the last attempt did not go through (retried or final). */
  reason?: string;
  /** When the next attempt is due (ISO 8601), while the run waits to be sent again; a relay run's: when its lease runs out. */
  retryAt?: string;
  /** A relay run: the consumer it was last handed to (docs/relay.md). */
  consumer?: string;
}

/** A run that waits to be sent to its target again: queued with `waiting_for = 'retry'`. */
export interface RunReschedule {
  /** Not claimed before then. */
  notBefore: number;
  /** Why the attempt failed (the run's `error` meanwhile). */
  error: string;
  handoff: HandoffRecord;
}

/** A run written in the same transaction as another run's end (a callback to send). */
export interface FollowUpRun {
  runId: string;
  kind: 'callback';
  hook: string;
  name: string;
  /** The callback's stored action, as JSON. */
  action: string;
}

/** A handoff record in words (`HTTP 200`, `its run 4f…`, `its run ended ok`, why it failed, the next attempt): status, the console. */
export function handoffFacts(handoff: HandoffRecord, time: (iso: string) => string = (iso) => iso): string[] {
  return [
    handoff.consumer === undefined ? undefined : `consumer ${handoff.consumer}`,
    handoff.status === undefined ? undefined : `HTTP ${handoff.status}`,
    handoff.runId === undefined ? undefined : `its run ${handoff.runId}`,
    handoff.outcome === undefined ? undefined : `its run ended ${handoff.outcome.status}`,
    handoff.reason,
    handoff.retryAt === undefined ? undefined : `next attempt ${time(handoff.retryAt)}`,
  ].filter((fact): fact is string => fact !== undefined);
}
