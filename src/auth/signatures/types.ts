import type { TProperties } from 'typebox';

/** Headers as a verifier sees them: lower-cased names, one value each (a repeated header is refused before). */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

/**
 * A mapping's `signature` settings once checked: what a scheme verifies and signs with. `options`
 * holds the scheme's own keys (validated against the scheme's `options` schema at load).
 */
export interface SignatureSettings<O = Readonly<Record<string, unknown>>> {
  /** Every secret that may sign (rotation: any one verifies); empty for schemes without one (discord). Never logged. */
  readonly secrets: readonly string[];
  /** How far a signed timestamp may be from now, in seconds (timestamped schemes only). */
  readonly toleranceSeconds: number;
  readonly options: O;
}

/** The request as a verifier sees it: the body's bytes exactly as received, headers lower-cased. */
export interface SignedRequest {
  readonly body: Buffer;
  readonly headers: HeaderMap;
  /** The raw query string, without `?` (Twilio signs the URL it called). */
  readonly query: string;
  /** Unix seconds now (injected so tests control the window). */
  readonly nowSeconds: number;
}

/**
 * Why a signature was refused; also the `reason` label of hookgate_signature_failures_total.
 * `undecodable`: what the signature covers is text decoded from the body (Twilio's form fields), and
 * that text is not UTF-8, so several bodies would read alike under one signature.
 */
export type SignatureFailure = 'missing' | 'malformed' | 'mismatch' | 'expired' | 'undecodable';

/**
 * `signedContent`: what the signature covered, when that is not the raw body (Twilio: the URL and the
 * decoded, sorted form fields). The replay key digests it, so every spelling of one signed request
 * is one delivery.
 */
export type Verification = { ok: true; timestamp: number | undefined; signedContent?: string } | { ok: false; reason: SignatureFailure };

/** What a provider's test request is answered with, instead of an action (after its signature verified). */
export interface HandshakeReply {
  status: 200 | 204;
  body: Record<string, unknown> | null;
}

/** A GET a provider sends to confirm a subscription (Meta's hub.challenge), answered before any POST arrives. */
/** `absent`: the GET is no subscription check at all (a browser, a monitor): it goes on, uncounted. */
export type SubscriptionReply = { ok: true; text: string } | { ok: false; reason: 'refused' | 'malformed' | 'absent' };

/** What a sender sends for a body: the headers, and the body or query when the sender puts something there. */
export interface SignedDelivery {
  headers: Record<string, string>;
  /** The body as sent when the sender writes the time into it (Linear's webhookTimestamp); else the body given. */
  body?: Buffer;
  /** The query string the request goes to (Twilio's bodySHA256), without `?`. */
  query?: string;
}

/**
 * How the replay key is chosen. `delivery-id`: the sender's delivery id is covered by the signature
 * (Stripe's event id, Standard Webhooks' webhook-id), so it is the key; a request without one falls
 * back to the content. `content`: the id, if any, is not signed, so anyone could send a captured
 * request again under a fresh one: the key is the digest of the signed timestamp and the signed
 * content (the body, or the verification's `signedContent`).
 */
export type ReplayKeyRule = 'delivery-id' | 'content';

/**
 * One provider's signing protocol: one file per scheme, one line in ./registry.ts. `O` is the type of
 * the scheme's own options (`Static` of its `options` schema).
 */
export interface SignatureScheme<O = Readonly<Record<string, unknown>>> {
  readonly name: string;
  /** One line for docs and `hookgate try`: what the sender puts where. */
  readonly summary: string;
  /** Signs with a timestamp, so `toleranceSeconds` applies. */
  readonly timestamped: boolean;
  /** The signature covers the body (false: GitLab's token, which proves only who sent it). */
  readonly signsBody: boolean;
  /** The scheme is keyed by `secret`/`secrets` (false: discord, verified with a public key option). */
  readonly usesSecret: boolean;
  /** Bodies may come form-encoded (Slack slash commands, Twilio; hmac with bodyFormat "form"). */
  acceptsForm(settings: SignatureSettings<O>): boolean;
  readonly replayKey: ReplayKeyRule;
  /** Typebox properties of the keys this scheme adds to a mapping's `signature` (each with a description). */
  readonly options: TProperties;
  /** Problems with the settings (a secret that is not base64, a missing option), found at start-up; `field` is relative to `signature`. */
  checkSettings(settings: SignatureSettings<O>): Array<{ field: string; message: string }>;
  /**
   * Lower-cased names of the headers that carry signatures or secrets: kept out of templates,
   * transforms, logs, the console's request log and `try` output; sent twice → 400.
   */
  signatureHeaders(settings: SignatureSettings<O>): readonly string[];
  verify(settings: SignatureSettings<O>, request: SignedRequest): Promise<Verification>;
  /** The header the provider names a delivery by, when it has one (shown in the console's request log). */
  readonly deliveryIdHeader?: string;
  /** The provider's delivery id, from the verified headers or payload. */
  deliveryId(headers: HeaderMap, payload: Record<string, unknown>): string | undefined;
  /**
   * The delivery's event type (what a mapping's `events` list names), or undefined when this one
   * carries none. Absent when the sender's deliveries never say (the generic `hmac`): the mapping
   * then names `eventField`, and the `events` key's description lists the scheme.
   */
  eventType?(headers: HeaderMap, payload: Record<string, unknown>): string | undefined;
  /**
   * A verified request the provider sends to test the endpoint, answered with this reply and no
   * action (Slack's url_verification, GitHub's ping, Discord's PING); undefined for an ordinary delivery.
   */
  handshake?(headers: HeaderMap, payload: Record<string, unknown>): HandshakeReply | undefined;
  /** Answers a GET subscription check (Meta's hub.challenge) from the query. */
  subscription?(settings: SignatureSettings<O>, query: URLSearchParams): SubscriptionReply;
  /**
   * What a sender would send for `body` at `nowSeconds` (first secret): `hookgate sign` and tests.
   * Absent when only the provider can sign (discord: Ed25519 with the provider's private key).
   */
  sign?(settings: SignatureSettings<O>, body: Buffer, nowSeconds: number, deliveryId: string): Promise<SignedDelivery>;
}
