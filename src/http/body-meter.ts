import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** The bytes of one request's body as they arrive off the socket, whoever reads them and however late. */
export interface BodyMeter {
  /** Body bytes received so far (before any Content-Encoding is undone). */
  readonly received: number;
  /** Whether the last byte has arrived. */
  readonly complete: boolean;
  /** Calls `listener` with the size of each chunk from now on, as it arrives. */
  onBytes(listener: (bytes: number) => void): void;
  /** Stops counting and lets go of the request stream and of every listener (the request was answered). */
  detach(): void;
}

const METER_STATE = 'bodyMeter';

/**
 * The request's meter, installed on first use (the body budget's guard, else the body reader).
 * It counts what node's HTTP parser hands the request stream (`push`), so a body is measured as it
 * lands in memory, not as a reader consumes it, and the count does not depend on which reader
 * (co-body, raw-body) takes the bytes or when it starts. Bytes that arrived before it was installed
 * are still unread in the stream's buffer (nothing reads a body before the meter exists), so they
 * count from the start.
 */
export function meterOf(ctx: Context): BodyMeter {
  const existing: unknown = ctx.state[METER_STATE];
  if (existing instanceof ArrivalMeter) return existing;
  const meter = new ArrivalMeter(ctx.req);
  ctx.state[METER_STATE] = meter;
  return meter;
}

class ArrivalMeter implements BodyMeter {
  received: number;
  complete: boolean;
  private listeners: Array<(bytes: number) => void> = [];
  private readonly release: () => void;

  constructor(req: IncomingMessage) {
    this.received = req.readableLength;
    this.complete = req.complete;
    if (this.complete) {
      // Nothing more will arrive: no hook on the stream.
      this.release = () => undefined;
      return;
    }
    const push = req.push;
    const hook = (chunk: unknown, encoding?: BufferEncoding): boolean => {
      if (chunk === null) {
        this.complete = true;
        this.detach();
      } else if (Buffer.isBuffer(chunk) && chunk.length > 0) this.arrived(chunk.length);
      return push.call(req, chunk, encoding);
    };
    req.push = hook;
    // Node keeps a keep-alive connection's last request object until the next request arrives: the
    // hook and its listeners (the budget's charge, a reader's deadline, hence the whole context)
    // must not stay reachable from it once the body is in.
    this.release = () => {
      // Assigned back rather than deleted: deleting a property would turn the request object into
      // a slow dictionary-mode object for the rest of its handling.
      if (req.push === hook) req.push = push;
    };
  }

  onBytes(listener: (bytes: number) => void): void {
    if (!this.complete) this.listeners.push(listener);
  }

  detach(): void {
    this.listeners = [];
    this.release();
  }

  private arrived(bytes: number): void {
    this.received += bytes;
    for (const listener of this.listeners) listener(bytes);
  }
}
