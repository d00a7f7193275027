/**
 * Koa floor: the durable limit's work (read and parse the JSON body, compare the bearer token in
 * constant time, commit the body in a per-turn group commit, answer) done through the stack
 * Hookgate must use: koa, @koa/router and koa-body. Hookgate's rate over this one shows what its
 * own features cost (validation, mapping, envelope, idempotency, metrics, the writer thread); the
 * durable limit over this one shows what the stack costs before Hookgate does anything.
 * Env: REF_PORT, REF_TOKEN, REF_DB, REF_SYNC (as bench/reference-durable.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { committerFromEnv } from './reference-commit.js';

const UNPARSED = Symbol.for('unparsedBody');
const commit = committerFromEnv();
const expected = Buffer.from(`Bearer ${process.env['REF_TOKEN'] ?? ''}`);
const app = new Koa();
const router = new Router();

router.get('/readyz', (ctx) => {
  ctx.body = { ok: true };
});
router.post(
  '/hooks/{*rest}',
  koaBody({ json: true, jsonStrict: true, jsonLimit: 1024 * 1024, text: false, urlencoded: false, multipart: false, includeUnparsed: true }),
  async (ctx) => {
    const given = Buffer.from(ctx.get('authorization'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      ctx.status = 401;
      ctx.body = { ok: false };
      return;
    }
    await commit((ctx.request.body as Record<symbol, string>)[UNPARSED] ?? '');
    ctx.body = { ok: true };
  },
);
app.use(router.routes());

const server = app.listen(Number(process.env['REF_PORT'] ?? '0'), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
});
