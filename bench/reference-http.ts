/**
 * HTTP limit: a minimal node:http webhook endpoint (read body, parse JSON, check bearer token,
 * answer) with no durability. Nothing on this stack answers webhooks faster.
 */
import { serveReference } from './reference-server.js';

serveReference(async () => undefined);
