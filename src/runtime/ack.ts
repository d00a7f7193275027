import { HEARTBEAT_ACK_TOKEN } from '../heartbeat-token.js';

/** The reason recorded with the skipped delivery of an acknowledgment (run or heartbeat). */
export const ACK_SKIP_REASON = 'the reply is only a heartbeat acknowledgment';

/**
 * True when a reply is a heartbeat acknowledgment: it begins or ends with HEARTBEAT_OK (light
 * markup such as `**` or backticks around it ignored) and what remains besides the token is at
 * most ackMaxChars long. Such replies are never delivered: they mean "nothing to report".
 */
export function isHeartbeatAck(reply: string, ackMaxChars: number): boolean {
  const text = reply.replace(/^[\s*_`]+|[\s*_`]+$/g, '');
  let rest: string;
  if (text.startsWith(HEARTBEAT_ACK_TOKEN)) rest = text.slice(HEARTBEAT_ACK_TOKEN.length);
  else if (text.endsWith(HEARTBEAT_ACK_TOKEN)) rest = text.slice(0, -HEARTBEAT_ACK_TOKEN.length);
  else return false;
  return rest.replace(/^[\s*_`.:,;!-]+|[\s*_`.:,;!-]+$/g, '').length <= ackMaxChars;
}
