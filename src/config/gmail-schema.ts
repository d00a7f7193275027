import Type, { type Static } from 'typebox';
import type { ConfigIssue } from '../errors.js';

/** Google's real endpoints; tests (and private mirrors) point these elsewhere. */
export const GOOGLE_ENDPOINTS = {
  gmail: 'https://gmail.googleapis.com',
  pubsub: 'https://pubsub.googleapis.com',
  oauthToken: 'https://oauth2.googleapis.com/token',
  oidcCerts: 'https://www.googleapis.com/oauth2/v3/certs',
} as const;

const EndpointsSchema = Type.Object(
  {
    gmail: Type.String({ minLength: 1, default: GOOGLE_ENDPOINTS.gmail, description: 'Base URL of the Gmail REST API.' }),
    pubsub: Type.String({ minLength: 1, default: GOOGLE_ENDPOINTS.pubsub, description: 'Base URL of the Pub/Sub REST API.' }),
    oauthToken: Type.String({ minLength: 1, default: GOOGLE_ENDPOINTS.oauthToken, description: 'OAuth 2.0 token endpoint (refresh of the access token).' }),
    oidcCerts: Type.String({ minLength: 1, default: GOOGLE_ENDPOINTS.oidcCerts, description: "JWKS of Google's OIDC signing keys (push mode)." }),
  },
  { additionalProperties: false, default: {}, description: "Google's API base URLs; leave unset in production." },
);

const PushSchema = Type.Object(
  {
    path: Type.String({ pattern: '^/[^?#]*$', default: '/gmail/push', description: 'Where Pub/Sub pushes, under hooks.path (POST {hooks.path}{push.path}).' }),
    audience: Type.String({ minLength: 1, description: "The `aud` claim the push subscription's OIDC token must carry (usually the push endpoint URL)." }),
    serviceAccountEmail: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Required in push mode: the OIDC token must name this service account in `email` with `email_verified` true (any Google Cloud service account can mint a token for any audience). `hookgate gmail setup` writes it.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Push mode: Pub/Sub posts notifications to the service with a Google-signed OIDC token.' },
);

export const GmailSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: '`hookgate serve` runs the Gmail watcher in-process.' }),
    account: Type.Optional(Type.String({ minLength: 1, description: 'The Gmail address watched (the OAuth consent was given for it).' })),
    label: Type.String({ minLength: 1, default: 'INBOX', description: 'Label id watched; only messages added with it are admitted.' }),
    topic: Type.Optional(Type.String({ pattern: '^projects/[^/]+/topics/[^/]+$', description: 'Pub/Sub topic Gmail publishes to: projects/<project>/topics/<name>.' })),
    subscription: Type.Optional(
      Type.String({
        pattern: '^(projects/[^/]+/subscriptions/)?[^/]+$',
        description: "Pub/Sub subscription: projects/<project>/subscriptions/<name>, or just <name> in the topic's project (OpenClaw's form).",
      }),
    ),
    mode: Type.Union([Type.Literal('pull'), Type.Literal('push')], { default: 'pull', description: '`pull`: the watcher pulls from the subscription (works on loopback); `push`: Pub/Sub posts to the service.' }),
    credentialsFile: Type.String({
      minLength: 1,
      default: './gmail-credentials.json',
      description: 'File (mode 0600) with the OAuth client and refresh token written by `hookgate gmail setup`; relative to the config file.',
    }),
    includeBody: Type.Boolean({ default: true, description: 'Put the message body (text/plain, else HTML as text) into the payload.' }),
    maxBytes: Type.Integer({ minimum: 1, maximum: 1048576, default: 20000, description: 'Largest body in UTF-8 bytes; longer bodies are cut.' }),
    renewEveryMinutes: Type.Integer({ minimum: 1, maximum: 10080, default: 720, description: "How often users.watch is renewed (Google's watch expires after 7 days)." }),
    model: Type.Optional(Type.String({ minLength: 1, description: 'Model override for the gmail preset.' })),
    thinking: Type.Optional(Type.String({ minLength: 1, description: 'Thinking level for the gmail preset.' })),
    allowUnsafeExternalContent: Type.Optional(Type.Boolean({ description: 'DANGEROUS: disables the envelope for the gmail preset.' })),
    push: Type.Optional(PushSchema),
    endpoints: EndpointsSchema,
  },
  {
    additionalProperties: true,
    description: 'Gmail source (`hookgate gmail setup` writes it). Unknown keys written by other tools are kept and ignored.',
  },
);

export type GmailConfig = Static<typeof GmailSchema>;

/** A bare subscription name (OpenClaw writes one) lives in the topic's project: the full resource name. */
export function qualifySubscription(gmail: GmailConfig): void {
  const project = /^projects\/([^/]+)\/topics\//.exec(gmail.topic ?? '')?.[1];
  if (gmail.subscription !== undefined && !gmail.subscription.startsWith('projects/') && project !== undefined) {
    gmail.subscription = `projects/${project}/subscriptions/${gmail.subscription}`;
  }
}

/** What the watcher needs beyond the schema, checked only when it is enabled. */
export function gmailConfigIssues(gmail: GmailConfig | undefined, presets: readonly string[], hooksEnabled: boolean): ConfigIssue[] {
  if (gmail === undefined || gmail.enabled !== true) return [];
  const issues: ConfigIssue[] = [];
  const need = (key: string, message: string) => issues.push({ path: `/hooks/gmail/${key}`, message });
  if (gmail.account === undefined) need('account', 'required when hooks.gmail.enabled (run `hookgate gmail setup`)');
  if (gmail.topic === undefined) need('topic', 'required when hooks.gmail.enabled (run `hookgate gmail setup`)');
  if (gmail.mode === 'pull' && gmail.subscription === undefined) need('subscription', 'required in pull mode');
  if (gmail.mode === 'push' && gmail.push === undefined) need('push', 'required in push mode (push.audience and push.serviceAccountEmail)');
  if (gmail.mode === 'push' && gmail.push !== undefined && gmail.push.serviceAccountEmail === undefined) {
    need('push/serviceAccountEmail', "required in push mode: the service account of the push subscription's OIDC token (any Google Cloud service account can mint a token for any audience; `hookgate gmail setup --push-service-account` writes it)");
  }
  if (!hooksEnabled) issues.push({ path: '/hooks/enabled', message: 'hooks.gmail.enabled needs hooks.enabled (the watcher admits through the hooks)' });
  if (!presets.includes('gmail')) issues.push({ path: '/hooks/presets', message: 'hooks.gmail.enabled needs "gmail" in hooks.presets' });
  return issues;
}
