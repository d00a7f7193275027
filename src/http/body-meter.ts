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
  private readonly listeners: Array<(bytes: number) => void> = [];

  constructor(req: IncomingMessage) {
    this.received = req.readableLength;
    this.complete = req.complete;
    const push = req.push.bind(req);
    req.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
      if (chunk === null) this.complete = true;
      else if (Buffer.isBuffer(chunk) && chunk.length > 0) this.arrived(chunk.length);
      return push(chunk, encoding);
    };
  }

  onBytes(listener: (bytes: number) => void): void {
    this.listeners.push(listener);
  }

  private arrived(bytes: number): void {
    this.received += bytes;
    for (const listener of this.listeners) listener(bytes);
  }
}
