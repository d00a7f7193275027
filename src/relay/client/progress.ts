import type { WireEvent } from '../wire.js';
import type { LocalOutcome } from './handoff.js';

/** What `hookgate relay` tells its operator as it goes. */
export interface RelayProgress {
  pulled(events: number, backlog: number): void;
  handed(event: WireEvent, outcome: LocalOutcome): void;
  /** The edge did not take an acknowledgement as one (`not-leased`: another consumer has the event now, …). */
  ackNote(id: string, result: string): void;
  unavailable(reason: string, waitMs: number): void;
  stopped(): void;
}

const ACK_NOTES: Readonly<Record<string, string>> = {
  'not-leased': 'its lease ran out and another consumer has it now (it dedupes on the same id)',
  ended: 'the edge had ended it already (dropped past its retention)',
  unknown: 'the edge does not know it',
};

/**
 * On a terminal, one status line redrawn in place (received, forwarded, refused, the backlog on the
 * edge, connected or not) with what needs attention printed above it; elsewhere (a log, a service
 * manager), one plain line per event and per change.
 */
export function createProgress(out: { write(text: string): void; isTTY: boolean }): RelayProgress {
  const counts = { received: 0, forwarded: 0, refused: 0, backlog: 0 };
  let state = 'connecting';
  let connected = false;
  const status = (): string => `received ${counts.received} · forwarded ${counts.forwarded} · refused ${counts.refused} · backlog on the edge ${counts.backlog} · ${state}`;
  const redraw = (): void => {
    if (out.isTTY) out.write(`\r\u001b[2K${status()}`);
  };
  const line = (text: string): void => {
    out.write(out.isTTY ? `\r\u001b[2K${text}\n${status()}` : `${text}\n`);
  };
  return {
    pulled(events, backlog) {
      counts.received += events;
      counts.backlog = backlog;
      state = 'connected';
      if (!connected) line(`connected; backlog on the edge: ${backlog}`);
      connected = true;
      redraw();
    },
    handed(event, outcome) {
      const again = event.deliveries > 1 ? `, delivery ${event.deliveries}` : '';
      if (outcome.kind === 'taken') {
        counts.forwarded += 1;
        counts.backlog = Math.max(0, counts.backlog - 1);
        if (out.isTTY) redraw();
        else line(`forwarded ${event.id} (HTTP ${outcome.answer.status}${again})`);
      } else if (outcome.kind === 'refused') {
        counts.refused += 1;
        line(`refused ${event.id}${again}: ${outcome.reason}; the edge ends it as error`);
      } else {
        line(`not taken yet ${event.id}${again}: ${outcome.reason}; trying again in ${seconds(outcome.waitMs)}`);
      }
    },
    ackNote(id, result) {
      line(`acknowledgement of ${id}: ${result}: ${ACK_NOTES[result] ?? 'see the edge'}`);
    },
    unavailable(reason, waitMs) {
      connected = false;
      state = `edge unavailable, retrying in ${seconds(waitMs)}`;
      line(`edge unavailable: ${reason}; retrying in ${seconds(waitMs)}`);
    },
    stopped() {
      if (out.isTTY) out.write('\n');
      out.write(`stopped: ${counts.forwarded} forwarded, ${counts.refused} refused; events not acknowledged are handed out again after their lease\n`);
    },
  };
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}
