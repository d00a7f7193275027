/*
 * The ledger of hooks.bodyBudgetBytes: what each request holds, in total and per client, and which
 * stalled bodies give way. src/http/body-budget.ts opens the charges and guards the requests.
 */
import { HookError } from '../errors.js';
import { RecentBytes } from './recent-bytes.js';

/**
 * When the budget is full, an incomplete body that brought fewer bytes than this over the last one
 * to two seconds is cut (408) to make room for one that arrives (docs/security.md)…
 */
export const STALLED_BELOW_BYTES = 64 * 1024;
/** …once it has been arriving this long: a body that just started has shown no rate yet. */
export const STALL_GRACE_MS = 1000;

/** One request's share of the budget: what its body has cost so far. */
export interface BodyCharge {
  readonly bytes: number;
  /** Adds bytes that arrived; false (nothing added) when they do not fit. */
  grow(bytes: number): boolean;
  /** Charges at least `bytes` from now on (a body that inflates may become that much); false when that does not fit. */
  reserve(bytes: number): boolean;
  /**
   * From now until its release, the charge also counts against `client`'s share: a body read before
   * its sender is authenticated. False (not counted) when the client's other bodies leave no room.
   */
  countAgainst(client: string): boolean;
  /** Why the request was refused mid-body (the budget ran out, or it stalled while room was needed), if it was; then `whenRefused` listeners ran. */
  readonly refusal: HookError | undefined;
  whenRefused(listener: (refusal: HookError) => void): void;
  refuse(refusal: HookError): void;
  release(): void;
}

/**
 * What is held, in total and per client. A body may pass the budget (or its client's share) only
 * while no other request holds any of it, so a path whose limit exceeds the budget is never
 * refused forever.
 */
export class Ledger {
  held = 0;
  private readonly byClient = new Map<string, number>();
  /** The charges not released yet: the candidates to cut when room is needed. */
  readonly open = new Set<Charge>();

  readonly limitBytes: number;
  readonly perClientBytes: number;
  readonly clock: { now(): number };

  constructor(limitBytes: number, perClientBytes: number, clock: { now(): number }) {
    this.limitBytes = limitBytes;
    this.perClientBytes = perClientBytes;
    this.clock = clock;
  }

  heldBy(client: string): number {
    return this.byClient.get(client) ?? 0;
  }

  /** Whether `bytes` more fit for a request that holds `own` already, counted against `client` if any. */
  fits(own: number, client: string | undefined, bytes: number): boolean {
    return this.fitsBudget(own, bytes) && this.fitsClient(own, client, bytes);
  }

  private fitsBudget(own: number, bytes: number): boolean {
    return !(this.held - own > 0 && this.held + bytes > this.limitBytes);
  }

  private fitsClient(own: number, client: string | undefined, bytes: number): boolean {
    if (client === undefined) return true;
    const clientHeld = this.heldBy(client);
    return !(clientHeld - own > 0 && clientHeld + bytes > this.perClientBytes);
  }

  /**
   * Cuts stalled bodies of other requests, slowest first, until `bytes` more fit the budget for
   * `requester`; whether they fit now. A client's own share is never made room in: cutting other
   * clients' bodies cannot help it.
   */
  makeRoom(requester: Charge, bytes: number): boolean {
    if (!this.fitsClient(requester.bytes, requester.clientKey, bytes)) return false;
    const now = this.clock.now();
    const stalled = [...this.open]
      .filter((charge) => charge !== requester && charge.stalled(now))
      .sort((a, b) => a.recentBytes(now) - b.recentBytes(now) || b.bytes - a.bytes);
    for (const victim of stalled) {
      if (this.fitsBudget(requester.bytes, bytes)) break;
      victim.cut();
    }
    return this.fits(requester.bytes, requester.clientKey, bytes);
  }

  add(client: string | undefined, bytes: number): void {
    this.held += bytes;
    if (client !== undefined) this.addFor(client, bytes);
  }

  addFor(client: string, bytes: number): void {
    const now = this.heldBy(client) + bytes;
    if (now > 0) this.byClient.set(client, now);
    else this.byClient.delete(client);
  }
}

export class Charge implements BodyCharge {
  /** What is charged: the bytes that arrived, or the reservation when that is more. */
  private own = 0;
  private arrived = 0;
  private reserved = 0;
  private client: string | undefined;
  private released = false;
  private refused: HookError | undefined;
  private readonly listeners: Array<(refusal: HookError) => void> = [];
  private readonly ledger: Ledger;
  private readonly complete: () => boolean;
  private readonly recent = new RecentBytes();
  private readonly openedAt: number;

  constructor(ledger: Ledger, complete: () => boolean) {
    this.ledger = ledger;
    this.complete = complete;
    this.openedAt = ledger.clock.now();
    ledger.open.add(this);
  }

  get bytes(): number {
    return this.own;
  }

  get clientKey(): string | undefined {
    return this.client;
  }

  recentBytes(now: number): number {
    return this.recent.total(now);
  }

  /** Holding budget for a body that is still to come and has hardly moved lately. */
  stalled(now: number): boolean {
    if (this.own === 0 || this.refused !== undefined || now - this.openedAt < STALL_GRACE_MS || this.complete()) return false;
    return this.recent.total(now) < STALLED_BELOW_BYTES;
  }

  /** Refused (408) and released at once, so its bytes serve another body. */
  cut(): void {
    this.refuse(stalledRefusal());
    this.release();
  }

  get refusal(): HookError | undefined {
    return this.refused;
  }

  grow(bytes: number): boolean {
    if (!this.chargeFor(this.arrived + bytes, this.reserved)) return false;
    this.arrived += bytes;
    if (bytes > 0) this.recent.add(this.ledger.clock.now(), bytes);
    return true;
  }

  reserve(bytes: number): boolean {
    if (!this.chargeFor(this.arrived, Math.max(this.reserved, bytes))) return false;
    this.reserved = Math.max(this.reserved, bytes);
    return true;
  }

  private chargeFor(arrived: number, reserved: number): boolean {
    if (this.released) return true;
    const more = Math.max(arrived, reserved) - this.own;
    if (more <= 0) return true;
    if (!this.ledger.fits(this.own, this.client, more) && !this.ledger.makeRoom(this, more)) return false;
    this.own += more;
    this.ledger.add(this.client, more);
    return true;
  }

  countAgainst(client: string): boolean {
    if (this.client !== undefined) return this.client === client;
    if (this.released) return true;
    const clientHeld = this.ledger.heldBy(client);
    if (clientHeld > 0 && clientHeld + this.own > this.ledger.perClientBytes) return false;
    this.client = client;
    this.ledger.addFor(client, this.own);
    return true;
  }

  whenRefused(listener: (refusal: HookError) => void): void {
    if (this.refused === undefined) this.listeners.push(listener);
    else listener(this.refused);
  }

  refuse(refusal: HookError): void {
    if (this.refused !== undefined || this.released) return;
    this.refused = refusal;
    for (const listener of this.listeners.splice(0)) listener(refusal);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.ledger.open.delete(this);
    this.ledger.add(this.client, -this.own);
  }
}

/** A body cut to make room: the connection closes after the answer, and on a signed path it counts as a failed authentication, as any 408. */
function stalledRefusal(): HookError {
  return new HookError('BODY_TIMEOUT', 'request body stalled while the server needed room for bodies that arrive', { closeConnection: true });
}
