import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';

/** The example deliveries each sender (or its SDK authors) published, copied into the repository with their sources. */
export const CORPORA_DIR = join(import.meta.dirname, '..', 'fixtures', 'corpora');

/** One example delivery: the body as sent, and the headers the sender would send with it (lower-case, no signature). */
export interface CorpusDelivery {
  /** Where it came from, e.g. `pagerduty/payloads/incident.priority_updated__go-pagerduty-webhookv3-test.json`. */
  label: string;
  /** The raw body: JSON text, or the form-encoded text of Slack's slash commands. */
  body: string;
  contentType: 'application/json' | 'application/x-www-form-urlencoded';
  /** The body as the engine sees it once parsed (form fields as an object). */
  payload: Record<string, unknown>;
  headers: Record<string, string>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function jsonDelivery(path: string, headers: Record<string, string> = {}): CorpusDelivery {
  const body = readFileSync(path, 'utf8');
  return { label: relative(CORPORA_DIR, path), body, contentType: 'application/json', payload: JSON.parse(body) as Record<string, unknown>, headers };
}

/** Slack's form bodies as its scheme reads them: fields as an object, `payload` parsed when it holds JSON. */
export function formFields(body: string): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.fromEntries(new URLSearchParams(body));
  const inner = fields['payload'];
  if (typeof inner === 'string' && inner.startsWith('{')) fields['payload'] = JSON.parse(inner) as unknown;
  return fields;
}

function payloadFiles(sender: string): string[] {
  return filesUnder(join(CORPORA_DIR, sender, 'payloads')).sort();
}

const GITLAB_EVENT_HEADERS: Record<string, string> = {
  push: 'Push Hook',
  tag_push: 'Tag Push Hook',
  issue: 'Issue Hook',
  note: 'Note Hook',
  merge_request: 'Merge Request Hook',
  pipeline: 'Pipeline Hook',
  build: 'Job Hook',
  deployment: 'Deployment Hook',
  access_token: 'Resource Access Token Hook',
};

/** Sentry names the resource in a header; the corpus names it in the file name (`issue_created__…`). */
function sentryResource(path: string): string {
  const match = /^(event_alert|metric_alert|issue|comment|installation|error)_/.exec(basename(path));
  if (match?.[1] === undefined) throw new Error(`no Sentry resource in ${path}`);
  return match[1];
}

/**
 * PagerDuty publishes full envelopes and, per `data.type`, the `event.data` objects alone; each
 * data object is posted as every event type whose data has that type (event_types.tsv).
 */
function pagerdutyDeliveries(): CorpusDelivery[] {
  const root = join(CORPORA_DIR, 'pagerduty');
  const envelopes = readdirSync(join(root, 'payloads'))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => jsonDelivery(join(root, 'payloads', name)));
  const types = readFileSync(join(root, 'event_types.tsv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split('\t') as [string, string]);
  const wrapped = readdirSync(join(root, 'payloads', 'event_data_examples'))
    .sort()
    .flatMap((name) => {
      const dataType = name.replace(/\.data\.json$/, '');
      const data = JSON.parse(readFileSync(join(root, 'payloads', 'event_data_examples', name), 'utf8')) as unknown;
      return types
        .filter(([, type]) => type === dataType)
        .map(([eventType]) => {
          const payload = { event: { id: `corpus-${eventType}`, event_type: eventType, resource_type: dataType, occurred_at: '2024-01-01T00:00:00Z', agent: null, client: null, data } };
          return { label: `pagerduty/payloads/event_data_examples/${name} as ${eventType}`, body: JSON.stringify(payload), contentType: 'application/json' as const, payload, headers: {} };
        });
    });
  return [...envelopes, ...wrapped];
}

const require = createRequire(import.meta.url);

/** Every example of `@octokit/webhooks-examples` (api.github.com), each with its X-GitHub-Event. */
export function octokitDeliveries(): CorpusDelivery[] {
  const index = require('@octokit/webhooks-examples/api.github.com/index.json') as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
  return index.flatMap(({ name, examples }) =>
    examples.map((payload, k) => ({ label: `@octokit/webhooks-examples ${name}[${k}]`, body: JSON.stringify(payload), contentType: 'application/json' as const, payload, headers: { 'x-github-event': name } })),
  );
}

/** Every example delivery of a sender in test/fixtures/corpora. */
export function corpusDeliveries(sender: string): CorpusDelivery[] {
  switch (sender) {
    case 'github':
      return payloadFiles('github').map((path) => jsonDelivery(path, { 'x-github-event': basename(path).split('.')[0] ?? '' }));
    case 'gitlab':
      return payloadFiles('gitlab').map((path) => {
        const delivery = jsonDelivery(path);
        const kind = delivery.payload['object_kind'];
        const header = typeof kind === 'string' ? GITLAB_EVENT_HEADERS[kind] : 'System Hook';
        return header === undefined ? delivery : { ...delivery, headers: { 'x-gitlab-event': header } };
      });
    case 'sentry':
      return payloadFiles('sentry').map((path) => jsonDelivery(path, { 'sentry-hook-resource': sentryResource(path) }));
    case 'pagerduty':
      return pagerdutyDeliveries();
    case 'slack':
      return payloadFiles('slack').map((path) => {
        if (!path.endsWith('.form')) return jsonDelivery(path);
        const body = readFileSync(path, 'utf8').trim();
        return { label: relative(CORPORA_DIR, path), body, contentType: 'application/x-www-form-urlencoded' as const, payload: formFields(body), headers: {} };
      });
    case 'shopify':
      return shopifyDeliveries();
    default:
      return payloadFiles(sender).map((path) => jsonDelivery(path));
  }
}

/** Shopify published no payload examples (shopify/SOURCE.md); its SDK's signature vector is the one delivery. */
function shopifyDeliveries(): CorpusDelivery[] {
  const vectors = JSON.parse(readFileSync(join(CORPORA_DIR, 'shopify', 'vectors.json'), 'utf8')) as { vectors: Array<{ name: string; body: string; expected_headers: Record<string, string> }> };
  return vectors.vectors.map((vector) => {
    const headers = Object.fromEntries(Object.entries(vector.expected_headers).filter(([name]) => !/hmac/i.test(name)).map(([name, value]) => [name.toLowerCase(), value]));
    return { label: `shopify/vectors.json ${vector.name}`, body: vector.body, contentType: 'application/json' as const, payload: JSON.parse(vector.body) as Record<string, unknown>, headers };
  });
}
