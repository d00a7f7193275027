import { defineSenderPreset, lines } from './sender.js';

const BY = '{{#if actor.name}} by {{actor.name}}{{/if}}';

const ISSUE = lines(
  `Linear issue {{default data.identifier data.id}} {{pick action "create" "created" "update" "updated" "remove" "removed"}}${BY}: {{oneline data.title 200}}`,
  '{{#if data.state.name}}State: {{data.state.name}}{{#if data.priorityLabel}}, priority {{data.priorityLabel}}{{/if}}{{#if data.assignee.name}}, assignee {{data.assignee.name}}{{/if}}{{#if data.team.key}} (team {{data.team.key}}){{/if}}',
  '{{/if}}{{default url data.url}}{{#if data.description}}',
  '',
  '{{excerpt data.description 2000}}{{/if}}',
);

const COMMENT = lines(
  `{{pick action "create" "New comment" "update" "Comment edited" "remove" "Comment deleted"}}${BY} on Linear issue {{#if data.issue.identifier}}{{data.issue.identifier}}: {{oneline data.issue.title 200}}{{else}}{{data.issueId}}{{/if}}`,
  '{{default url data.url}}{{#if data.body}}',
  '',
  '{{excerpt data.body 2000}}{{/if}}',
);

const FALLBACK = lines(
  `Linear {{default type "entity"}} {{default data.identifier data.name data.title data.id}} {{pick action "create" "created" "update" "updated" "remove" "removed"}}${BY}`,
  '{{default url data.url "(no link in the delivery)"}}',
);

/** Linear does not document a largest delivery; an entity with its description is small. */
const LINEAR_MAX_BODY_BYTES = 1024 * 1024;

/** The fields whose change is worth a run; an update touching only others (sort order, sub-issue order…) is skipped. */
const MEANINGFUL_ISSUE_FIELDS = ['stateId', 'assigneeId', 'priority', 'title', 'description', 'dueDate', 'estimate', 'cycleId', 'projectId'];

/** A Linear workspace or OAuth app's webhooks (Linear-Signature). */
export const linearPreset = defineSenderPreset({
  name: 'linear',
  title: 'Linear',
  scheme: 'linear',
  summary: 'POST {hooks.path}/linear: issues created and changed (state, assignee, priority, text) and comments, one session per issue.',
  replyChannel: 'linear',
  maxBodyBytes: LINEAR_MAX_BODY_BYTES,
  defaultEvents: ['Issue.create', 'Issue.update', 'Comment.create'],
  groups: [
    {
      id: 'issue',
      handles: ['Issue'],
      message: ISSUE,
      sessionKey: '{{#if data.id}}hook:linear:{{data.id}}{{/if}}',
      replyTo: '{{data.id}}',
      filters: [
        {
          reason: 'Linear sends `update` for every field, sort order and sub-issue moves included; only a change of state, assignee, priority, title, description, due date, estimate, cycle or project is worth a run.',
          keep: { any: [{ field: 'payload.action', notEquals: 'update' }, ...MEANINGFUL_ISSUE_FIELDS.map((name) => ({ field: `payload.updatedFrom.${name}`, exists: true }))] },
        },
      ],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'Triage changes state, assignee and priority of one issue in quick succession; one run sees the result.' },
    },
    {
      id: 'comment',
      handles: ['Comment'],
      message: COMMENT,
      sessionKey: '{{#if (default data.issue.id data.issueId)}}hook:linear:{{default data.issue.id data.issueId}}{{/if}}',
      replyTo: '{{default data.issue.id data.issueId}}',
      ownMessages: { channel: 'linear', id: '{{data.id}}', to: '{{default data.issue.id data.issueId}}', text: '{{data.body}}' },
      filters: [{ reason: 'Comments written by an integration (`botActor` set; your agent\'s own among them) would start a reply loop.', keep: { field: 'payload.data.botActor', exists: false } }],
    },
  ],
  fallback: { message: FALLBACK, sessionKey: '{{#if data.id}}hook:linear:{{data.id}}{{/if}}' },
  example: {
    name: 'linear',
    payload: {
      action: 'create',
      type: 'Issue',
      actor: { id: 'u1', type: 'user', name: 'Ada Lovelace' },
      data: { id: '9f1c', identifier: 'ENG-42', title: 'Cards jam at speed', state: { name: 'Todo' }, priorityLabel: 'High', team: { key: 'ENG' } },
      url: 'https://linear.app/acme/issue/ENG-42/cards-jam-at-speed',
      webhookTimestamp: 1700000000000,
    },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['Linear issue ENG-42 created by Ada Lovelace: Cards jam at speed', 'https://linear.app/acme/issue/ENG-42/cards-jam-at-speed'],
      sessionKey: 'hook:linear:9f1c',
    },
  },
});
