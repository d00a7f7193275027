import { describe, expect, it } from 'vitest';
import { JoinRefused } from '../../../src/store/postgres/join-refused.js';

describe('a PostgreSQL debounce join refused inside its transaction', () => {
  it('carries the code of what refused it: a rate limit is RATE_LIMITED with its Retry-After, a used key IDEMPOTENCY_CONFLICT', () => {
    expect(new JoinRefused({ kind: 'rate-limited', retryAfterMs: 1500 })).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 2 });
    expect(new JoinRefused({ kind: 'conflict' })).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
    expect(new JoinRefused({ kind: 'replayed', responseJson: '{}' })).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
  });
});
