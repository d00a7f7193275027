import type { Config } from '../../config/schema.js';
import { HookError } from '../../errors.js';
import { isPushEnvelope } from './envelope.js';
import { presetNames } from '../../config/preset-schema.js';

const DEFAULT_PUSH_PATH = '/gmail/push';

/**
 * A Pub/Sub push envelope posted to the gmail preset's own path would match the preset, find no
 * `messages` and answer a silent 204: Google would think it delivered. Say where pushes go instead.
 */
export function misdirectedPushGuard(hooks: Config['hooks']): (name: string, payload: unknown) => void {
  if (!presetNames(hooks.presets).includes('gmail')) return () => undefined;
  const pushPath = `${hooks.path}${hooks.gmail?.push?.path ?? DEFAULT_PUSH_PATH}`;
  return (name, payload) => {
    if (name !== 'gmail' || !isPushEnvelope(payload)) return;
    throw new HookError(
      'PUBSUB_PUSH_MISDIRECTED',
      `this is a Pub/Sub push envelope: the gmail preset takes {"source":"gmail","messages":[…]}; point the push subscription at POST ${pushPath} (hooks.gmail.mode "push")`,
    );
  };
}
