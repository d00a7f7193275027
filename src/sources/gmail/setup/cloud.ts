import { GoogleApiError } from '../google-http.js';
import type { GmailApi } from '../gmail-api.js';
import type { PubsubApi, SubscriptionSpec } from '../pubsub-api.js';

/** Gmail publishes notifications as this account; it needs the publisher role on the topic. */
export const GMAIL_PUBLISHER = 'serviceAccount:gmail-api-push@system.gserviceaccount.com';
const PUBLISHER_ROLE = 'roles/pubsub.publisher';

class SetupStepError extends Error {
  constructor(step: string, cause: unknown, hint: string) {
    super(`${step} failed: ${(cause as Error).message}${hint === '' ? '' : `\n  → ${hint}`}`);
    this.name = 'SetupStepError';
  }
}

export interface CloudSetup {
  project: string;
  topic: string;
  subscription: string;
  label: string;
  push?: { endpoint: string; serviceAccountEmail: string; audience: string };
}

/** Each step checks first and changes only what is missing, so running setup again is safe. */
export async function ensureTopic(pubsub: PubsubApi, setup: CloudSetup, print: (line: string) => void): Promise<void> {
  await step('Pub/Sub topic', setup, async () => {
    if ((await pubsub.getTopic(setup.topic)) !== undefined) return print(`✓ topic ${setup.topic} exists`);
    await pubsub.createTopic(setup.topic);
    print(`✓ topic ${setup.topic} created`);
  });
}

export async function ensurePublisherGrant(pubsub: PubsubApi, setup: CloudSetup, print: (line: string) => void): Promise<void> {
  await step('publisher grant', setup, async () => {
    const policy = await pubsub.getIamPolicy(setup.topic);
    const bindings = policy.bindings ?? [];
    const binding = bindings.find((item) => item.role === PUBLISHER_ROLE);
    if (binding?.members.includes(GMAIL_PUBLISHER) === true) return print(`✓ ${GMAIL_PUBLISHER} already has ${PUBLISHER_ROLE} on the topic`);
    const next = binding === undefined ? [...bindings, { role: PUBLISHER_ROLE, members: [GMAIL_PUBLISHER] }] : bindings.map((item) => (item === binding ? { ...item, members: [...item.members, GMAIL_PUBLISHER] } : item));
    await pubsub.setIamPolicy(setup.topic, { ...policy, bindings: next });
    print(`✓ granted ${PUBLISHER_ROLE} on the topic to ${GMAIL_PUBLISHER}`);
  });
}

export async function ensureSubscription(pubsub: PubsubApi, setup: CloudSetup, print: (line: string) => void): Promise<void> {
  const pushConfig = setup.push === undefined ? undefined : { pushEndpoint: setup.push.endpoint, oidcToken: { serviceAccountEmail: setup.push.serviceAccountEmail, audience: setup.push.audience } };
  await step('Pub/Sub subscription', setup, async () => {
    const existing = await pubsub.getSubscription(setup.subscription);
    const kind = pushConfig === undefined ? 'pull' : `push to ${pushConfig.pushEndpoint}`;
    if (existing === undefined) {
      const spec: SubscriptionSpec = { topic: setup.topic, ackDeadlineSeconds: 60, ...(pushConfig === undefined ? {} : { pushConfig }) };
      await pubsub.createSubscription(setup.subscription, spec);
      return print(`✓ subscription ${setup.subscription} created (${kind})`);
    }
    if (existing.topic !== setup.topic) throw new Error(`it exists but belongs to ${existing.topic}; choose another --subscription`);
    if (JSON.stringify(existing.pushConfig?.pushEndpoint === undefined ? undefined : existing.pushConfig) === JSON.stringify(pushConfig)) {
      return print(`✓ subscription ${setup.subscription} exists (${kind})`);
    }
    await pubsub.modifyPushConfig(setup.subscription, pushConfig ?? {});
    print(`✓ subscription ${setup.subscription} changed to ${kind}`);
  });
}

export async function startWatch(gmail: GmailApi, setup: CloudSetup, print: (line: string) => void): Promise<void> {
  await step('Gmail watch', setup, async () => {
    const watch = await gmail.watch(setup.topic, setup.label);
    print(`✓ Gmail watch on ${setup.label} publishes to the topic (history ${watch.historyId}, expires ${new Date(watch.expiration).toISOString()}; the watcher renews it)`);
  });
}

async function step(name: string, setup: CloudSetup, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    throw new SetupStepError(name, error, hintFor(name, error, setup));
  }
}

/** What to do about a refusal, in the console's words. */
function hintFor(name: string, error: unknown, setup: CloudSetup): string {
  if (!(error instanceof GoogleApiError)) return '';
  const console = `https://console.cloud.google.com`;
  if (error.reason === 'SERVICE_DISABLED' || /has not been used|is disabled/i.test(error.message)) {
    const api = name === 'Gmail watch' ? 'gmail.googleapis.com' : 'pubsub.googleapis.com';
    return `enable the API: ${console}/apis/library/${api}?project=${setup.project}`;
  }
  if (error.status === 401) return 'the stored authorization is no longer valid: run setup again with --reauth';
  if (error.status !== 403) return '';
  switch (name) {
    case 'Pub/Sub topic':
      return `your account needs pubsub.topics.get and pubsub.topics.create on project ${setup.project} (role Pub/Sub Editor)`;
    case 'publisher grant':
      return `your account needs pubsub.topics.getIamPolicy and pubsub.topics.setIamPolicy on ${setup.topic} (role Pub/Sub Admin)`;
    case 'Pub/Sub subscription':
      return setup.push === undefined
        ? `your account needs pubsub.subscriptions.create and pubsub.topics.attachSubscription (role Pub/Sub Editor)`
        : `your account needs pubsub.subscriptions.create and iam.serviceAccounts.actAs on ${setup.push.serviceAccountEmail} (role Service Account User)`;
    default:
      return `Gmail cannot publish to ${setup.topic}: check that ${GMAIL_PUBLISHER} has ${PUBLISHER_ROLE} on it, and that the topic is in a project your account can use`;
  }
}
