import { defineSenderPreset, lines } from './sender.js';

const ORG = 'installation.organization.slug';
/** The issue's page: its web_url, else built from the organization when the installation names it (Sentry's own examples carry neither). */
const ISSUE_LINK = `{{#if data.issue.web_url}}\n{{data.issue.web_url}}{{else}}{{#if ${ORG}}}\nhttps://sentry.io/organizations/{{${ORG}}}/issues/{{data.issue.id}}/{{/if}}{{/if}}`;

const ISSUE = lines(
  'Sentry issue {{default data.issue.shortId data.issue.id}} {{pick action "created" "is new" "resolved" "was resolved" "assigned" "was assigned" "ignored" "was ignored" "archived" "was archived" "unresolved" "came back (unresolved)"}}{{#if data.issue.project.slug}} in {{data.issue.project.slug}}{{/if}}: {{oneline data.issue.title 200}}',
  'Level {{default data.issue.level "unknown"}}, status {{default data.issue.status "unknown"}}{{#if data.issue.substatus}} ({{pick data.issue.substatus}}){{/if}}{{#if data.issue.count}}, {{data.issue.count}} event(s){{/if}}{{#if data.issue.userCount}}, {{data.issue.userCount}} user(s){{/if}}{{#if data.issue.assignedTo.name}}, assigned to {{data.issue.assignedTo.name}}{{/if}}{{#if data.issue.culprit}}',
  'Culprit: {{oneline data.issue.culprit 200}}{{/if}}{{#if data.issue.metadata.filename}}',
  `File: {{data.issue.metadata.filename}}{{#if data.issue.metadata.function}} ({{data.issue.metadata.function}}){{/if}}{{/if}}${ISSUE_LINK}`,
);

const EVENT_ALERT = lines(
  'Sentry alert{{#if data.triggered_rule}} "{{oneline data.triggered_rule 120}}"{{/if}} fired for issue {{data.event.issue_id}}: {{oneline (default data.event.title data.event.message) 200}}',
  '{{#if data.event.environment}}Environment: {{data.event.environment}}{{#if data.event.level}}, level {{data.event.level}}{{/if}}',
  '{{/if}}{{#if data.event.culprit}}Culprit: {{oneline data.event.culprit 200}}',
  '{{/if}}{{default data.event.web_url data.event.url}}',
);

const METRIC_ALERT = lines(
  'Sentry metric alert "{{oneline (default data.metric_alert.alert_rule.name data.metric_alert.title) 120}}" is {{pick action "critical" "critical" "warning" "at warning" "resolved" "resolved"}}{{#if data.description_text}}: {{oneline data.description_text 300}}{{/if}}',
  '{{#if data.web_url}}{{data.web_url}}{{else}}{{#if installation.organization.slug}}https://sentry.io/organizations/{{installation.organization.slug}}/alerts/rules/details/{{data.metric_alert.alert_rule.id}}/{{else}}Alert rule {{data.metric_alert.alert_rule.id}}{{/if}}{{/if}}',
);

const COMMENT = lines(
  '{{default actor.name "someone"}} {{pick action "created" "commented on" "updated" "edited a comment on" "deleted" "deleted a comment on"}} Sentry issue {{data.issue_id}}{{#if data.project_slug}} in {{data.project_slug}}{{/if}}',
  `{{#if ${ORG}}}https://sentry.io/organizations/{{${ORG}}}/issues/{{data.issue_id}}/{{else}}Comment {{data.comment_id}}{{/if}}{{#if data.comment}}`,
  '',
  '{{excerpt data.comment 2000}}{{/if}}',
);

const ERROR = lines(
  'Sentry error{{#if data.error.project}} in project {{data.error.project}}{{/if}}: {{oneline (default data.error.title data.error.message) 200}}',
  '{{#if data.error.culprit}}Culprit: {{oneline data.error.culprit 200}}',
  '{{/if}}{{default data.error.web_url data.error.url}}',
);

const FALLBACK = lines(
  'Sentry {{pick (default headers.sentry-hook-resource "delivery")}}{{#if action}} {{pick action}}{{/if}}{{#if actor.name}} by {{actor.name}}{{/if}}{{#if installation.organization.slug}} in {{installation.organization.slug}}{{/if}}',
  '{{#if installation.organization.slug}}https://sentry.io/organizations/{{installation.organization.slug}}/{{else}}(no link in the delivery){{/if}}',
);

/** Sentry does not document a largest delivery; issue and alert payloads are small, an error event with its stack trace reaches hundreds of KiB. */
const SENTRY_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** A Sentry internal integration's webhooks (Sentry-Hook-Signature). */
export const sentryPreset = defineSenderPreset({
  name: 'sentry',
  title: 'Sentry',
  scheme: 'sentry',
  summary: 'POST {hooks.path}/sentry: new and regressed issues, issue alerts, metric alerts and comments, one session per Sentry issue.',
  maxBodyBytes: SENTRY_MAX_BODY_BYTES,
  defaultEvents: ['issue.created', 'issue.unresolved', 'event_alert.triggered', 'metric_alert.critical', 'metric_alert.warning', 'comment.created'],
  groups: [
    {
      id: 'issue',
      handles: ['issue'],
      message: ISSUE,
      sessionKey: '{{#if data.issue.id}}hook:sentry:{{data.issue.id}}{{/if}}',
      debounce: { windowSeconds: 120, maxWaitSeconds: 900, reason: 'An issue that flaps between resolved and unresolved (or is assigned right after it is created) sends several deliveries in minutes; one run sees the latest.' },
    },
    {
      id: 'event_alert',
      handles: ['event_alert'],
      message: EVENT_ALERT,
      sessionKey: '{{#if data.event.issue_id}}hook:sentry:{{data.event.issue_id}}{{/if}}',
      debounce: { windowSeconds: 300, maxWaitSeconds: 1800, reason: 'An alert rule fires per event of a noisy issue; one run per issue per burst.' },
    },
    {
      id: 'metric_alert',
      handles: ['metric_alert'],
      message: METRIC_ALERT,
      sessionKey: '{{#if data.metric_alert.alert_rule.id}}hook:sentry:metric-alert:{{data.metric_alert.alert_rule.id}}{{/if}}',
      debounce: { windowSeconds: 300, maxWaitSeconds: 1800, reason: 'A metric near its threshold flaps between warning, critical and resolved; one run sees where it settled.' },
    },
    {
      id: 'comment',
      handles: ['comment'],
      message: COMMENT,
      sessionKey: '{{#if data.issue_id}}hook:sentry:{{data.issue_id}}{{/if}}',
      filters: [{ reason: 'Comments written by an integration (your agent\'s own among them) would start a reply loop.', keep: { field: 'payload.actor.type', notEquals: 'application' } }],
    },
    { id: 'error', handles: ['error'], message: ERROR, sessionKey: '{{#if data.error.issue_id}}hook:sentry:{{data.error.issue_id}}{{/if}}' },
  ],
  fallback: { message: FALLBACK, sessionKey: '' },
  example: {
    name: 'sentry',
    payload: {
      action: 'created',
      data: { issue: { id: '4242', shortId: 'WEB-7', title: 'TypeError: card.punch is not a function', level: 'error', status: 'unresolved', project: { slug: 'web' }, web_url: 'https://sentry.io/organizations/acme/issues/4242/' } },
      installation: { uuid: 'b1c2', organization: { slug: 'acme' } },
      actor: { type: 'application', id: 'sentry', name: 'Sentry' },
    },
    headers: { 'sentry-hook-resource': 'issue' },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['Sentry issue WEB-7 is new in web: TypeError: card.punch is not a function', 'https://sentry.io/organizations/acme/issues/4242/'],
      sessionKey: 'hook:sentry:4242',
    },
  },
});
