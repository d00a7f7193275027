import { defineSenderPreset, lines, type NoiseFilter } from './sender.js';

const WHO = '{{default user.username user.name user_username "someone"}}';
const PROJECT = '{{default project.path_with_namespace project_name}}';

const NOT_BOT: NoiseFilter = {
  reason: 'Project and group access tokens act as bot users (`project_<id>_bot…`, `group_<id>_bot…`); CI jobs and your own agent use them.',
  keep: { not: { field: 'payload.user.username', regex: '^(project|group)_[0-9]+_bot' } },
};
const NOT_DRAFT: NoiseFilter = {
  reason: 'A draft merge request is work in progress; marking it ready sends an `update` that passes.',
  keep: { all: [{ field: 'payload.object_attributes.draft', notEquals: true }, { field: 'payload.object_attributes.work_in_progress', notEquals: true }] },
};

const MERGE_REQUEST = lines(
  `${WHO} {{pick object_attributes.action "open" "opened" "close" "closed" "reopen" "reopened" "update" "updated" "approved" "approved" "unapproved" "withdrew approval of" "approval" "approved" "unapproval" "withdrew approval of" "merge" "merged" "updated"}} merge request {{#if object_attributes.iid}}!{{object_attributes.iid}}{{else}}{{object_attributes.id}}{{/if}} in ${PROJECT}{{#if object_attributes.title}}: {{oneline object_attributes.title 200}}{{/if}}`,
  '{{#if object_attributes.state}}State: {{object_attributes.state}}{{#if object_attributes.source_branch}}, {{object_attributes.source_branch}} → {{object_attributes.target_branch}}{{/if}}{{#if object_attributes.detailed_merge_status}} ({{pick object_attributes.detailed_merge_status}}){{/if}}',
  '{{/if}}{{default object_attributes.url project.web_url}}{{#if object_attributes.description}}',
  '',
  '{{excerpt object_attributes.description 2000}}{{/if}}',
);

const ISSUE = lines(
  `${WHO} {{pick object_attributes.action "open" "opened" "close" "closed" "reopen" "reopened" "update" "updated"}} issue #{{object_attributes.iid}} in ${PROJECT}: {{oneline object_attributes.title 200}}`,
  'State: {{object_attributes.state}}{{#if object_attributes.confidential}} (confidential){{/if}}',
  '{{object_attributes.url}}{{#if object_attributes.description}}',
  '',
  '{{excerpt object_attributes.description 2000}}{{/if}}',
);

/** A note is on a merge request, an issue, a commit or a snippet; the first it names is the entity. */
const NOTE_TARGET =
  '{{#if merge_request.iid}}merge request !{{merge_request.iid}}: {{oneline merge_request.title 200}}{{else}}{{#if issue.iid}}issue #{{issue.iid}}: {{oneline issue.title 200}}{{else}}{{#if commit.id}}commit {{truncate commit.id 8 ""}}: {{oneline commit.message 120}}{{else}}{{#if snippet.id}}snippet {{snippet.id}}: {{oneline snippet.title 200}}{{else}}{{pick object_attributes.noteable_type}}{{/if}}{{/if}}{{/if}}{{/if}}';
const NOTE = lines(
  `${WHO} commented in ${PROJECT} on ${NOTE_TARGET}`,
  '{{object_attributes.url}}{{#if object_attributes.note}}',
  '',
  '{{excerpt object_attributes.note 2000}}{{/if}}',
);
/** A note's merge request or issue as the gitlab channel names it; a note on a commit or snippet names none it can answer on. */
const MERGE_REQUEST_TO = '{{#if merge_request.iid}}{{project.path_with_namespace}}!{{merge_request.iid}}{{/if}}';
const NOTE_TO = '{{#if merge_request.iid}}{{project.path_with_namespace}}!{{merge_request.iid}}{{else}}{{#if issue.iid}}{{project.path_with_namespace}}#{{issue.iid}}{{/if}}{{/if}}';
const NOTE_KEY =
  '{{#if merge_request.iid}}hook:gitlab:{{project.path_with_namespace}}!{{merge_request.iid}}{{else}}{{#if issue.iid}}hook:gitlab:{{project.path_with_namespace}}#{{issue.iid}}{{else}}{{#if commit.id}}hook:gitlab:{{project.path_with_namespace}}@{{commit.id}}{{/if}}{{/if}}{{/if}}';

const PIPELINE = lines(
  `Pipeline #{{object_attributes.id}} {{pick object_attributes.status "failed" "failed" "success" "succeeded" "canceled" "was canceled" "skipped" "was skipped" "manual" "waits for a manual action"}} in ${PROJECT} on {{object_attributes.ref}}{{#if merge_request.iid}} (merge request !{{merge_request.iid}}){{/if}}`,
  '{{#if commit.message}}Commit: {{oneline commit.message 200}}{{#if commit.author.name}} ({{commit.author.name}}){{/if}}',
  '{{/if}}{{#if object_attributes.url}}{{object_attributes.url}}{{else}}{{project.web_url}}/-/pipelines/{{object_attributes.id}}{{/if}}',
);
const PIPELINE_KEY =
  '{{#if merge_request.iid}}hook:gitlab:{{project.path_with_namespace}}!{{merge_request.iid}}{{else}}{{#if object_attributes.ref}}hook:gitlab:{{project.path_with_namespace}}@{{object_attributes.ref}}{{/if}}{{/if}}';

const JOB = lines(
  `Job "{{oneline build_name 120}}" ({{build_stage}}) {{pick build_status "failed" "failed" "success" "succeeded" "canceled" "was canceled"}} in ${PROJECT} on {{ref}}`,
  '{{#if repository.homepage}}{{repository.homepage}}/-/jobs/{{build_id}}{{else}}job {{build_id}}{{/if}}',
);

const PUSH = lines(
  `${WHO} pushed {{default total_commits_count commits.length}} commit(s) to {{ref}} in ${PROJECT}`,
  '{{#each commits}}- {{oneline message 120}}{{#if author.name}} ({{author.name}}){{/if}}',
  '{{/each}}{{default project.web_url repository.homepage}}',
);

const DEPLOYMENT = lines(
  `Deployment {{deployment_id}} to {{environment}} {{pick status "success" "succeeded" "failed" "failed" "canceled" "was canceled" "running" "is running"}} in ${PROJECT}{{#if ref}} ({{ref}}{{#if short_sha}} @ {{short_sha}}{{/if}}){{/if}}`,
  '{{#if commit_title}}Commit: {{oneline commit_title 200}}',
  '{{/if}}{{default deployable_url project.web_url}}',
);

const FALLBACK = lines(
  `GitLab {{pick (default object_kind event_name)}}{{#if object_attributes.action}} {{pick object_attributes.action}}{{/if}} by ${WHO}{{#if (default project.path_with_namespace project_name)}} in ${PROJECT}{{/if}}{{#if object_attributes.title}}: {{oneline object_attributes.title 200}}{{/if}}`,
  '{{default object_attributes.url project.web_url "(no link in the delivery)"}}',
);

/** GitLab refuses to send a webhook payload larger than 25 MB. */
const GITLAB_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** GitLab project and group webhooks (X-Gitlab-Token). */
export const gitlabPreset = defineSenderPreset({
  name: 'gitlab',
  title: 'GitLab',
  scheme: 'gitlab',
  summary: 'POST {hooks.path}/gitlab: merge requests, issues, comments, failed pipelines and deployments, one session per merge request or issue.',
  replyChannel: 'gitlab',
  maxBodyBytes: GITLAB_MAX_BODY_BYTES,
  defaultEvents: [
    'merge_request.open',
    'merge_request.reopen',
    'merge_request.update',
    'merge_request.merge',
    'merge_request.close',
    'merge_request.approved',
    'issue.open',
    'issue.reopen',
    'issue.close',
    'issue.update',
    'note',
    'pipeline',
    'deployment',
  ],
  groups: [
    {
      id: 'merge_request',
      handles: ['merge_request'],
      message: MERGE_REQUEST,
      sessionKey: '{{#if object_attributes.iid}}hook:gitlab:{{project.path_with_namespace}}!{{object_attributes.iid}}{{/if}}',
      replyTo: '{{#if object_attributes.iid}}{{project.path_with_namespace}}!{{object_attributes.iid}}{{/if}}',
      filters: [NOT_BOT, NOT_DRAFT],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'Every push to a merge request and every edit sends an `update`; one run sees the last state.' },
    },
    {
      id: 'issue',
      handles: ['issue'],
      message: ISSUE,
      sessionKey: '{{#if object_attributes.iid}}hook:gitlab:{{project.path_with_namespace}}#{{object_attributes.iid}}{{/if}}',
      replyTo: '{{#if object_attributes.iid}}{{project.path_with_namespace}}#{{object_attributes.iid}}{{/if}}',
      filters: [NOT_BOT],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'Issue edits (description, labels, checklists) come in bursts; one run sees the final text.' },
    },
    {
      id: 'note',
      handles: ['note'],
      message: NOTE,
      sessionKey: NOTE_KEY,
      replyTo: NOTE_TO,
      ownMessages: { channel: 'gitlab', id: '{{object_attributes.id}}', to: NOTE_TO, text: '{{object_attributes.note}}' },
      filters: [NOT_BOT, { reason: 'System notes ("changed the description", "added label") repeat what other events say.', keep: { field: 'payload.object_attributes.system', notEquals: true } }] },
    {
      id: 'pipeline',
      handles: ['pipeline'],
      message: PIPELINE,
      sessionKey: PIPELINE_KEY,
      replyTo: MERGE_REQUEST_TO,
      filters: [
        {
          reason: 'A pipeline sends an event on every status change (pending, running, success…); only a failure needs someone.',
          keep: { field: 'payload.object_attributes.status', equals: 'failed' },
        },
      ],
    },
    { id: 'build', handles: ['build'], message: JOB, sessionKey: '{{#if build_id}}hook:gitlab:{{project_name}}/jobs/{{build_id}}{{/if}}' },
    { id: 'push', handles: ['push', 'tag_push'], message: PUSH, sessionKey: '{{#if ref}}hook:gitlab:{{project.path_with_namespace}}@{{ref}}{{/if}}' },
    {
      id: 'deployment',
      handles: ['deployment'],
      message: DEPLOYMENT,
      sessionKey: '{{#if environment}}hook:gitlab:{{project.path_with_namespace}}/environments/{{environment}}{{/if}}',
      filters: [{ reason: 'A deployment sends `running` then its outcome; failed or canceled ones need someone.', keep: { field: 'payload.status', in: ['failed', 'canceled'] } }],
    },
  ],
  fallback: { message: FALLBACK, sessionKey: '{{#if project.path_with_namespace}}hook:gitlab:{{project.path_with_namespace}}{{/if}}' },
  example: {
    name: 'gitlab',
    payload: {
      object_kind: 'merge_request',
      user: { username: 'ada' },
      project: { path_with_namespace: 'analytics/engine', web_url: 'https://gitlab.example.com/analytics/engine' },
      object_attributes: {
        iid: 12,
        action: 'open',
        title: 'Cache the punched cards',
        state: 'opened',
        source_branch: 'cache',
        target_branch: 'main',
        url: 'https://gitlab.example.com/analytics/engine/-/merge_requests/12',
        description: 'Reads each card once.',
      },
    },
    headers: { 'x-gitlab-event': 'Merge Request Hook' },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['ada opened merge request !12 in analytics/engine: Cache the punched cards', 'https://gitlab.example.com/analytics/engine/-/merge_requests/12'],
      sessionKey: 'hook:gitlab:analytics/engine!12',
    },
  },
});
