import { defineSenderPreset, lines } from './sender.js';

const BY = '{{#if event.agent.summary}} by {{event.agent.summary}}{{/if}}';

/** The event types whose `data` is the incident itself. */
const INCIDENT_TYPES = [
  'incident.triggered',
  'incident.acknowledged',
  'incident.unacknowledged',
  'incident.escalated',
  'incident.reassigned',
  'incident.delegated',
  'incident.reopened',
  'incident.resolved',
  'incident.priority_updated',
  'incident.service_updated',
  'incident.incident_type.changed',
];

const INCIDENT = lines(
  `PagerDuty incident #{{event.data.number}} {{pick event.event_type "incident.triggered" "triggered" "incident.acknowledged" "was acknowledged" "incident.unacknowledged" "is unacknowledged again" "incident.escalated" "was escalated" "incident.reassigned" "was reassigned" "incident.delegated" "was delegated" "incident.reopened" "was reopened" "incident.resolved" "was resolved" "incident.priority_updated" "changed priority" "incident.service_updated" "moved to another service" "incident.incident_type.changed" "changed type" "changed"}}${BY}: {{oneline event.data.title 200}}`,
  'Status {{event.data.status}}{{#if event.data.urgency}}, urgency {{event.data.urgency}}{{/if}}{{#if event.data.priority.summary}}, priority {{event.data.priority.summary}}{{/if}}{{#if event.data.service.summary}}, service {{event.data.service.summary}}{{/if}}{{#if event.data.assignees.[0].summary}}',
  'Assigned to: {{#each event.data.assignees}}{{#if @index}}, {{/if}}{{summary}}{{/each}}{{/if}}',
  '{{event.data.html_url}}',
);

const NOTE = lines(
  `PagerDuty incident {{default event.data.incident.summary event.data.incident.id}}: note added${BY}`,
  '{{event.data.incident.html_url}}{{#if event.data.content}}',
  '',
  '{{excerpt event.data.content 2000}}{{/if}}',
);

const STATUS_UPDATE = lines(
  `PagerDuty incident {{default event.data.incident.summary event.data.incident.id}}: status update published${BY}`,
  '{{event.data.incident.html_url}}{{#if event.data.message}}',
  '',
  '{{excerpt event.data.message 2000}}{{/if}}',
);

const INCIDENT_DETAIL = lines(
  `PagerDuty incident {{default event.data.incident.summary event.data.incident.id event.data.incident_role_assignments.[0].incident.summary event.data.incident_role_assignments.[0].incident.id}}: {{pick event.event_type "incident.responder.added" "responder added" "incident.responder.replied" "responder replied" "incident.role.assigned" "role assigned" "incident.task.created" "task created" "incident.task.updated" "task updated" "incident.task.completed" "task completed" "incident.custom_field_values.updated" "custom fields updated" "incident.conference_bridge.updated" "conference bridge updated" "incident.action_invocation.created" "automation action started" "incident.action_invocation.updated" "automation action updated" "incident.action_invocation.terminated" "automation action ended" "incident.workflow.started" "workflow started" "incident.workflow.completed" "workflow completed" "updated"}}${BY}`,
  '{{#if event.data.summary}}{{oneline event.data.summary 200}}',
  '{{/if}}{{default event.data.incident.html_url event.data.incident_role_assignments.[0].incident.html_url event.data.html_url "(no link in the delivery)"}}',
);

const SERVICE = lines(
  `PagerDuty service {{default event.data.summary event.data.name event.data.id}} {{pick event.event_type "service.created" "created" "service.updated" "updated" "service.deleted" "deleted" "service.custom_field_values.updated" "custom fields updated" "changed"}}${BY}`,
  '{{default event.data.html_url event.data.service.html_url "(no link in the delivery)"}}',
);

/** PagerDuty does not document a largest delivery; v3 events carry one resource, well under 1 MiB. */
const PAGERDUTY_MAX_BODY_BYTES = 1024 * 1024;

const INCIDENT_ID = '(default event.data.incident.id event.data.incident_role_assignments.[0].incident.id)';
const INCIDENT_KEY = `{{#if ${INCIDENT_ID}}}hook:pagerduty:{{default event.data.incident.id event.data.incident_role_assignments.[0].incident.id}}{{/if}}`;

/** PagerDuty v3 webhook subscriptions (X-PagerDuty-Signature). */
export const pagerdutyPreset = defineSenderPreset({
  name: 'pagerduty',
  title: 'PagerDuty',
  scheme: 'pagerduty',
  summary: 'POST {hooks.path}/pagerduty: incidents triggered, escalated, reopened and resolved, notes and status updates, one session per incident.',
  maxBodyBytes: PAGERDUTY_MAX_BODY_BYTES,
  defaultEvents: ['incident.triggered', 'incident.escalated', 'incident.reopened', 'incident.resolved', 'incident.priority_updated', 'incident.annotated', 'incident.status_update_published'],
  groups: [
    {
      id: 'incident',
      handles: INCIDENT_TYPES,
      message: INCIDENT,
      sessionKey: '{{#if event.data.id}}hook:pagerduty:{{event.data.id}}{{/if}}',
      debounce: { windowSeconds: 120, maxWaitSeconds: 600, reason: 'A flapping alert triggers, resolves and reopens one incident within minutes; one run sees where it settled.' },
    },
    { id: 'note', handles: ['incident.annotated'], message: NOTE, sessionKey: INCIDENT_KEY },
    { id: 'status_update', handles: ['incident.status_update_published'], message: STATUS_UPDATE, sessionKey: INCIDENT_KEY },
    {
      id: 'incident_detail',
      handles: ['incident.responder.*', 'incident.role.*', 'incident.task.*', 'incident.custom_field_values.*', 'incident.conference_bridge.*', 'incident.action_invocation.*', 'incident.workflow.*'],
      message: INCIDENT_DETAIL,
      sessionKey: INCIDENT_KEY,
    },
    { id: 'service', handles: ['service'], message: SERVICE, sessionKey: '{{#if event.data.id}}hook:pagerduty:service:{{event.data.id}}{{/if}}' },
  ],
  fallback: {
    message: lines(`PagerDuty {{pick event.event_type}}${BY}`, '{{default event.data.html_url event.data.incident.html_url "(no link in the delivery)"}}'),
    sessionKey: INCIDENT_KEY,
  },
  example: {
    name: 'pagerduty',
    payload: {
      event: {
        id: '01ABC',
        event_type: 'incident.triggered',
        resource_type: 'incident',
        agent: { summary: 'Monitoring', type: 'service_reference' },
        data: {
          id: 'PINC42',
          type: 'incident',
          number: 42,
          status: 'triggered',
          urgency: 'high',
          title: 'Checkout latency above 2 s',
          service: { summary: 'Checkout API' },
          html_url: 'https://acme.pagerduty.com/incidents/PINC42',
        },
      },
    },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['PagerDuty incident #42 triggered by Monitoring: Checkout latency above 2 s', 'https://acme.pagerduty.com/incidents/PINC42'],
      sessionKey: 'hook:pagerduty:PINC42',
    },
  },
});
