/**
 * The token a model answers when a heartbeat needs nothing from anyone: the runtime asks for it
 * and recognises it (runtime/ack.ts), the echo provider answers it.
 */
export const HEARTBEAT_ACK_TOKEN = 'HEARTBEAT_OK';
