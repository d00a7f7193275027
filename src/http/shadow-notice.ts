import type { Logger } from '../log.js';
import type { MappingEngine, RoutedMapping } from '../mapping/engine.js';

/** A signed request refused for want of the hook token by the first mapping of its path, which takes the token. */
export type ShadowNotice = (engine: MappingEngine, hook: string, first: RoutedMapping, signed: readonly RoutedMapping[]) => void;

/**
 * The sender only hears `401 missing hook token` (nothing about the config reaches an
 * unauthenticated caller); the operator gets one warning per path and mappings in force (a reload
 * may warn again) naming the mapping that answered and the signed ones its signature was meant
 * for. `hookgate check` says the same from the config alone.
 */
export function createShadowNotice(logger: Logger): ShadowNotice {
  const told = new WeakMap<MappingEngine, Set<string>>();
  return (engine, hook, first, signed) => {
    const hooks = told.get(engine) ?? new Set<string>();
    told.set(engine, hooks);
    if (hooks.has(hook)) return;
    hooks.add(hook);
    const ids = signed.map((mapping) => mapping.id);
    logger.warn(
      { event: 'hook.signature_behind_token_mapping', hook, mappingId: first.id, signedMappings: ids },
      `a request to "${hook}" carried the signature headers of ${ids.map((id) => `"${id}"`).join(', ')}, which did not verify; mapping "${first.id}" comes first on this path and takes the hook token, so it was answered 401 "missing hook token" rather than "invalid signature" (said once per path; see hookgate check)`,
    );
  };
}
