import type { GmailConfig } from '../../config/gmail-schema.js';
import type { Logger } from '../../log.js';
import type { MappingEngine } from '../../mapping/engine.js';
import type { GmailObserver } from '../../metrics/gmail.js';
import type { GmailStore, IngressStore } from '../../store/port.js';
import { createStoreAdmitter } from './admit.js';
import { createOidcVerifier } from './oidc.js';
import { createPushHandler, type PushRoute } from './push.js';
import { createGmailWatcher, type GmailWatcher, type SetTimer } from './watcher.js';

/** Test seams: Google's hosts are in the config (endpoints); these replace time. */
export interface GmailSourceSeams {
  fetch?: typeof fetch;
  setTimer?: SetTimer;
  delay?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface GmailSourceDeps extends GmailSourceSeams {
  config: GmailConfig;
  store: IngressStore;
  /** Where the watcher keeps its resume point and admitted message ids. */
  state: GmailStore;
  mappings: () => MappingEngine | undefined;
  logger: Logger;
  observer: GmailObserver;
}

export interface GmailSource {
  watcher: GmailWatcher;
  /** Push mode: the route under hooks.path and its handler. */
  push?: PushRoute & { path: string };
  close(): Promise<void>;
}

/** The Gmail watcher inside `hookgate serve`: admits through the mapping engine and the store, as a request. */
export function createGmailSource(deps: GmailSourceDeps): GmailSource {
  const account = deps.config.account ?? '';
  const logger = deps.logger.child({ source: 'gmail' });
  const watcher = createGmailWatcher({
    config: deps.config,
    state: deps.state,
    admitter: createStoreAdmitter({ store: deps.store, mappings: deps.mappings, account }),
    logger,
    observer: deps.observer,
    ...seams(deps),
  });
  const source: GmailSource = {
    watcher,
    async close() {
      await watcher.stop();
    },
  };
  const push = deps.config.mode === 'push' ? deps.config.push : undefined;
  if (push !== undefined) {
    // The configuration check refuses push mode without it (gmailConfigIssues); fail closed all the same.
    if (push.serviceAccountEmail === undefined) throw new Error('hooks.gmail.push.serviceAccountEmail is required in push mode');
    const verify = createOidcVerifier({
      certsUrl: deps.config.endpoints.oidcCerts,
      audience: push.audience,
      serviceAccountEmail: push.serviceAccountEmail,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.now ? { now: deps.now } : {}),
    });
    source.push = { path: push.path, ...createPushHandler({ verify, processor: () => watcher.processor(), logger }) };
  }
  return source;
}

function seams(deps: GmailSourceSeams): GmailSourceSeams {
  return {
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.setTimer ? { setTimer: deps.setTimer } : {}),
    ...(deps.delay ? { delay: deps.delay } : {}),
  };
}
