/**
 * Durable limit: the HTTP limit plus one node:sqlite insert of the body per request, committed in
 * one transaction per event-loop turn before answering (bench/reference-commit.ts). The least any
 * server on this stack must do to acknowledge durably.
 * Env: REF_DB (SQLite file), REF_SYNC (`full` | `normal`, as Hookgate's storage.synchronous).
 */
import { committerFromEnv } from './reference-commit.js';
import { serveReference } from './reference-server.js';

serveReference(committerFromEnv());
