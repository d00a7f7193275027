import { expect } from 'vitest';
import { ProviderError } from '../../src/providers/types.js';

/** The ProviderError a completion rejected with; fails the test if it resolved or threw anything else. */
export async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
