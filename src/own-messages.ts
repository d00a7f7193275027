import { hash } from 'node:crypto';

/**
 * How the service recognises a message it posted itself when the sender's webhook brings it back
 * (a comment posted with a personal access token arrives as a User's `issue_comment.created`).
 * Both sides compute the same marks: the channel from what it posts (src/channels/deliver.ts),
 * admission from the delivery (a mapping's `ownMessages`, src/mapping/own-messages.ts).
 *
 * - An id mark: the message's id as the service's API answered it. Known only after the answer.
 * - A content mark: the recipient and a hash of the exact text, written BEFORE the request leaves,
 *   so a webhook that outruns the API's answer (GitHub may send it first) is still recognised.
 */
export interface OwnMark {
  mark: string;
  /** How long it is remembered, in ms. */
  keepMs: number;
}

/** Ids outlive any redelivery a sender offers (GitHub: 3 days) and the replay window of signed content. */
export const OWN_ID_KEEP_MS = 7 * 24 * 3_600_000;
/**
 * A content mark only has to cover the seconds between the post and its answer (the id mark takes
 * over then); kept short so that a person who writes the very same text on the same entity later
 * is not mistaken for the service.
 */
export const OWN_CONTENT_KEEP_MS = 3_600_000;

export function idMark(id: string): OwnMark {
  return { mark: `id:${id.trim()}`, keepMs: OWN_ID_KEEP_MS };
}

/** Recipient compared without case (`Acme/API#3` is `acme/api#3`), text without CR and outer whitespace. */
export function contentMark(target: string, body: string): OwnMark {
  const digest = hash('sha256', `${target.trim().toLowerCase()}\n${body.replace(/\r\n?/g, '\n').trim()}`, 'base64url');
  return { mark: `text:${digest}`, keepMs: OWN_CONTENT_KEEP_MS };
}
