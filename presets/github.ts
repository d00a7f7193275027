import { defineSenderPreset, lines, type NoiseFilter } from './sender.js';

const WHO = '{{default sender.login "someone"}}';
const REPO = '{{repository.full_name}}';
/** An issue or pull request as the github channel names it (`owner/repo#12`), empty without its number. */
const ENTITY = (number: string): string => `{{#if ${number}}}${REPO}#{{${number}}}{{/if}}`;
const ENTITY_KEY = (number: string): string => `{{#if ${number}}}hook:github:${REPO}#{{${number}}}{{/if}}`;
const DISCUSSION = '{{#if discussion.number}}{{repository.full_name}}#discussion-{{discussion.number}}{{/if}}';

const NOT_BOT: NoiseFilter = {
  reason: 'Bots (Dependabot, GitHub Actions, your own agent\'s app) open, push and comment in volume; a human\'s action is what needs an answer.',
  keep: { not: { field: 'payload.sender.type', equals: 'Bot' } },
};
const NOT_DRAFT: NoiseFilter = {
  reason: 'A draft pull request is work in progress; its `ready_for_review` event arrives when it wants attention.',
  keep: { field: 'payload.pull_request.draft', notEquals: true },
};

/** Lines joined with newlines; optional lines open inside their `{{#if}}` so an absent part leaves no empty label. */

const PULL_REQUEST_VERB =
  '{{#if pull_request.merged}}merged{{else}}{{pick action "synchronize" "pushed new commits to" "ready_for_review" "marked" "review_requested" "requested a review on" "review_request_removed" "withdrew a review request on" "converted_to_draft" "converted" "auto_merge_enabled" "enabled auto-merge on" "auto_merge_disabled" "disabled auto-merge on" "enqueued" "queued" "dequeued" "took out of the merge queue"}}{{/if}}';
/** The words after the entity, for the actions that need them ("marked #2 ready for review"). */
const PULL_REQUEST_VERB_END = '{{pick action "ready_for_review" " ready for review" "converted_to_draft" " to a draft" "enqueued" " for merging" ""}}';
const PULL_REQUEST_STATE =
  'State: {{#if pull_request.merged}}merged{{else}}{{pull_request.state}}{{/if}}{{#if pull_request.draft}} (draft){{/if}}{{#if pull_request.head.ref}}, {{pull_request.head.ref}} → {{pull_request.base.ref}}{{/if}}';
const PULL_REQUEST_HEAD = `${WHO} PULL pull request #{{pull_request.number}} in ${REPO}END: {{oneline pull_request.title 200}}`;

const PULL_REQUEST = lines(
  PULL_REQUEST_HEAD.replace('PULL', PULL_REQUEST_VERB).replace('END', PULL_REQUEST_VERB_END),
  `${PULL_REQUEST_STATE}{{#if label.name}}`,
  'Label: {{label.name}}{{/if}}{{#if requested_reviewer.login}}',
  'Reviewer: {{requested_reviewer.login}}{{/if}}',
  '{{pull_request.html_url}}{{#if pull_request.body}}',
  '',
  '{{excerpt pull_request.body 2000}}{{/if}}',
);

const REVIEW = lines(
  PULL_REQUEST_HEAD.replace('END', '').replace(
    'PULL',
    '{{#if review.state}}{{pick review.state "approved" "approved" "changes_requested" "requested changes on" "commented" "reviewed" "dismissed" "had a review dismissed on"}}{{else}}{{pick action "submitted" "reviewed"}}{{/if}}',
  ),
  '{{default review.html_url pull_request.html_url}}{{#if review.body}}',
  '',
  '{{excerpt review.body 2000}}{{/if}}',
);

const REVIEW_COMMENT = lines(
  PULL_REQUEST_HEAD.replace('END', '').replace('PULL', '{{pick action "created" "commented on" "edited" "edited a comment on" "deleted" "deleted a comment on"}}'),
  '{{#if comment.path}}File: {{comment.path}}{{#if comment.line}}, line {{comment.line}}{{/if}}',
  '{{/if}}{{default comment.html_url pull_request.html_url}}{{#if comment.body}}',
  '',
  '{{excerpt comment.body 2000}}{{/if}}',
);

const REVIEW_THREAD = lines(
  PULL_REQUEST_HEAD.replace('END', '').replace('PULL', '{{pick action "resolved" "resolved a review thread on" "unresolved" "reopened a review thread on"}}'),
  '{{pull_request.html_url}}',
);

const ISSUE = lines(
  `${WHO} {{pick action}} issue #{{issue.number}} in ${REPO}: {{oneline issue.title 200}}`,
  '{{#if issue.state}}State: {{issue.state}}{{#if issue.state_reason}} ({{pick issue.state_reason}}){{/if}}',
  '{{/if}}{{#if label.name}}Label: {{label.name}}',
  '{{/if}}{{#if assignee.login}}Assignee: {{assignee.login}}',
  '{{/if}}{{issue.html_url}}{{#if issue.body}}',
  '',
  '{{excerpt issue.body 2000}}{{/if}}',
);

const ISSUE_COMMENT = lines(
  `${WHO} {{pick action "created" "commented on" "edited" "edited a comment on" "deleted" "deleted a comment on"}} {{#if issue.pull_request}}pull request{{else}}issue{{/if}} #{{issue.number}} in ${REPO}: {{oneline issue.title 200}}`,
  '{{default comment.html_url issue.html_url}}{{#if comment.body}}',
  '',
  '{{excerpt comment.body 2000}}{{/if}}',
);

const DISCUSSION_CREATED = lines(
  `${WHO} {{pick action "created" "started" "answered" "marked an answer in" "category_changed" "changed the category of"}} discussion #{{discussion.number}} in ${REPO}: {{oneline discussion.title 200}}`,
  '{{#if discussion.category.name}}Category: {{discussion.category.name}}',
  '{{/if}}{{discussion.html_url}}{{#if discussion.body}}',
  '',
  '{{excerpt discussion.body 2000}}{{/if}}',
);

const DISCUSSION_COMMENT = lines(
  `${WHO} {{pick action "created" "commented on" "edited" "edited a comment on" "deleted" "deleted a comment on"}} discussion #{{discussion.number}} in ${REPO}: {{oneline discussion.title 200}}`,
  '{{default comment.html_url discussion.html_url}}{{#if comment.body}}',
  '',
  '{{excerpt comment.body 2000}}{{/if}}',
);

const RELEASE = lines(
  `${WHO} {{pick action}} release {{release.tag_name}} in ${REPO}{{#if release.name}}: {{oneline release.name 200}}{{/if}}{{#if release.prerelease}} (pre-release){{/if}}`,
  '{{release.html_url}}{{#if release.body}}',
  '',
  '{{excerpt release.body 2000}}{{/if}}',
);

const RUN_OUTCOME = (run: string): string =>
  `{{#if ${run}.conclusion}}{{pick ${run}.conclusion "failure" "failed" "success" "succeeded" "cancelled" "was cancelled" "timed_out" "timed out" "startup_failure" "failed to start" "action_required" "needs approval" "skipped" "was skipped" "neutral" "finished (neutral)" "stale" "went stale"}}{{else}}is {{pick ${run}.status}}{{/if}}`;

const WORKFLOW_RUN = lines(
  `Workflow {{#if (default workflow_run.name workflow.name)}}"{{oneline (default workflow_run.name workflow.name) 120}}" {{/if}}run #{{workflow_run.run_number}} ${RUN_OUTCOME('workflow_run')} in ${REPO}{{#if workflow_run.head_branch}} on {{workflow_run.head_branch}}{{/if}}`,
  'Triggered by {{workflow_run.event}}{{#if workflow_run.head_commit.message}}: {{oneline workflow_run.head_commit.message 200}}{{/if}}{{#if workflow_run.pull_requests.[0].number}}',
  'Pull request: #{{workflow_run.pull_requests.[0].number}}{{/if}}',
  '{{workflow_run.html_url}}',
);

const WORKFLOW_JOB = lines(
  `Job {{#if workflow_job.name}}"{{oneline workflow_job.name 120}}" {{/if}}of workflow run {{workflow_job.run_id}} ${RUN_OUTCOME('workflow_job')} in ${REPO}{{#if workflow_job.head_branch}} on {{workflow_job.head_branch}}{{/if}}`,
  '{{workflow_job.html_url}}',
);

const PUSH = lines(
  `${WHO} {{#if deleted}}deleted {{ref}}{{else}}{{#if created}}created {{ref}}{{#if commits.length}} with {{commits.length}} commit(s){{/if}}{{else}}pushed {{commits.length}} commit(s) to {{ref}}{{/if}}{{/if}} in ${REPO}{{#if forced}} (force-push){{/if}}`,
  '{{#each commits}}- {{oneline message 120}}{{#if author.name}} ({{author.name}}){{/if}}',
  '{{/each}}{{default compare repository.html_url}}',
);

const ALERT_KEY = (kind: string): string => `{{#if alert.number}}hook:github:${REPO}/${kind}/{{alert.number}}{{/if}}`;

const DEPENDABOT_ALERT = lines(
  `Dependabot alert #{{alert.number}} {{pick action}} in ${REPO}: {{oneline alert.security_advisory.summary 200}}`,
  'Package: {{alert.dependency.package.name}} ({{alert.dependency.package.ecosystem}}){{#if alert.security_advisory.severity}}, severity {{alert.security_advisory.severity}}{{/if}}, state {{alert.state}}',
  '{{alert.html_url}}',
);

const CODE_SCANNING_ALERT = lines(
  `Code scanning alert #{{alert.number}} {{pick action "appeared_in_branch" "appeared in a branch" "closed_by_user" "closed by a user"}} in ${REPO}: {{oneline (default alert.rule.description alert.rule.id) 200}}`,
  '{{#if alert.tool.name}}Tool: {{alert.tool.name}}, {{/if}}severity {{default alert.rule.security_severity_level alert.rule.severity "unknown"}}, state {{alert.state}}',
  '{{alert.html_url}}',
);

const SECRET_SCANNING_ALERT = lines(
  `Secret scanning alert #{{alert.number}} {{pick action}} in ${REPO}: {{default alert.secret_type_display_name alert.secret_type}}`,
  'State: {{default alert.state "open"}}{{#if alert.resolution}} ({{pick alert.resolution}}){{/if}}',
  '{{alert.html_url}}',
);

const SECURITY_ADVISORY = lines(
  'GitHub security advisory {{security_advisory.ghsa_id}} {{pick action}}: {{oneline security_advisory.summary 200}}',
  'Severity {{default security_advisory.severity "not given"}}{{#if security_advisory.cve_id}}, {{security_advisory.cve_id}}{{/if}}{{#if security_advisory.vulnerabilities.[0].package.name}}, package {{security_advisory.vulnerabilities.[0].package.name}} ({{security_advisory.vulnerabilities.[0].package.ecosystem}}){{/if}}',
  'https://github.com/advisories/{{security_advisory.ghsa_id}}',
);

const FALLBACK = lines(
  `GitHub {{pick headers.x-github-event}}{{#if action}} {{pick action}}{{/if}} by ${WHO}{{#if repository.full_name}} in ${REPO}{{else}}{{#if organization.login}} in {{organization.login}}{{/if}}{{/if}}`,
  '{{default repository.html_url organization.url sender.html_url}}',
);

/** Payloads up to 25 MB (GitHub's documented cap; larger deliveries are not sent). */
const GITHUB_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** GitHub repository and organization webhooks (X-Hub-Signature-256). */
export const githubPreset = defineSenderPreset({
  name: 'github',
  title: 'GitHub',
  scheme: 'github',
  summary: 'POST {hooks.path}/github: pull requests, reviews, issues, comments, discussions, releases, failed workflow runs and security alerts, one session per entity.',
  replyChannel: 'github',
  maxBodyBytes: GITHUB_MAX_BODY_BYTES,
  defaultEvents: [
    'pull_request.opened',
    'pull_request.reopened',
    'pull_request.ready_for_review',
    'pull_request.synchronize',
    'pull_request.closed',
    'pull_request_review.submitted',
    'pull_request_review_comment.created',
    'issues.opened',
    'issues.reopened',
    'issues.closed',
    'issues.edited',
    'issue_comment.created',
    'discussion.created',
    'discussion_comment.created',
    'release.published',
    'workflow_run.completed',
    'dependabot_alert.created',
    'code_scanning_alert.created',
    'secret_scanning_alert.created',
  ],
  groups: [
    {
      id: 'pull_request',
      handles: ['pull_request'],
      message: PULL_REQUEST,
      sessionKey: ENTITY_KEY('pull_request.number'),
      replyTo: ENTITY('pull_request.number'),
      filters: [NOT_BOT, NOT_DRAFT],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'Pushes to one pull request come in bursts (`synchronize` per push, a rebase is several); one run sees the last state.' },
    },
    {
      id: 'pull_request_review',
      handles: ['pull_request_review'],
      message: REVIEW,
      sessionKey: ENTITY_KEY('pull_request.number'),
      replyTo: ENTITY('pull_request.number'),
      filters: [NOT_BOT, NOT_DRAFT],
    },
    {
      id: 'pull_request_review_comment',
      handles: ['pull_request_review_comment'],
      message: REVIEW_COMMENT,
      sessionKey: ENTITY_KEY('pull_request.number'),
      replyTo: ENTITY('pull_request.number'),
      filters: [NOT_BOT, NOT_DRAFT],
    },
    {
      id: 'pull_request_review_thread',
      handles: ['pull_request_review_thread'],
      message: REVIEW_THREAD,
      sessionKey: ENTITY_KEY('pull_request.number'),
      replyTo: ENTITY('pull_request.number'),
      filters: [NOT_BOT],
    },
    {
      id: 'issues',
      handles: ['issues'],
      message: ISSUE,
      sessionKey: ENTITY_KEY('issue.number'),
      replyTo: ENTITY('issue.number'),
      filters: [NOT_BOT],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'An issue is often edited several times in a minute (typos, checklists); one run sees the final text.' },
    },
    {
      id: 'issue_comment',
      handles: ['issue_comment'],
      message: ISSUE_COMMENT,
      sessionKey: ENTITY_KEY('issue.number'),
      replyTo: ENTITY('issue.number'),
      filters: [NOT_BOT],
      ownMessages: { channel: 'github', id: '{{comment.node_id}}', to: ENTITY('issue.number'), text: '{{comment.body}}' },
    },
    {
      id: 'discussion',
      handles: ['discussion'],
      message: DISCUSSION_CREATED,
      sessionKey: `{{#if discussion.number}}hook:github:${REPO}/discussions/{{discussion.number}}{{/if}}`,
      replyTo: DISCUSSION,
      filters: [NOT_BOT],
    },
    {
      id: 'discussion_comment',
      handles: ['discussion_comment'],
      message: DISCUSSION_COMMENT,
      sessionKey: `{{#if discussion.number}}hook:github:${REPO}/discussions/{{discussion.number}}{{/if}}`,
      replyTo: DISCUSSION,
      filters: [NOT_BOT],
      ownMessages: { channel: 'github', id: '{{comment.node_id}}', to: DISCUSSION, text: '{{comment.body}}' },
    },
    { id: 'release', handles: ['release'], message: RELEASE, sessionKey: `{{#if release.tag_name}}hook:github:${REPO}@{{release.tag_name}}{{/if}}` },
    {
      id: 'workflow_run',
      handles: ['workflow_run'],
      message: WORKFLOW_RUN,
      // A failed run of a pull request's checks joins that pull request's conversation.
      sessionKey: `{{#if workflow_run.pull_requests.[0].number}}hook:github:${REPO}#{{workflow_run.pull_requests.[0].number}}{{else}}{{#if workflow_run.workflow_id}}hook:github:${REPO}/workflows/{{workflow_run.workflow_id}}{{/if}}{{/if}}`,
      replyTo: ENTITY('workflow_run.pull_requests.[0].number'),
      filters: [
        {
          reason: 'A completed run that succeeded (or was skipped, cancelled, neutral) needs nobody; failures, time-outs and runs waiting for approval do.',
          keep: { any: [{ field: 'event', notEquals: 'workflow_run.completed' }, { field: 'payload.workflow_run.conclusion', in: ['failure', 'timed_out', 'startup_failure', 'action_required'] }] },
        },
      ],
    },
    {
      id: 'workflow_job',
      handles: ['workflow_job'],
      message: WORKFLOW_JOB,
      sessionKey: `{{#if workflow_job.run_id}}hook:github:${REPO}/runs/{{workflow_job.run_id}}{{/if}}`,
    },
    { id: 'push', handles: ['push'], message: PUSH, sessionKey: `{{#if ref}}hook:github:${REPO}@{{ref}}{{/if}}` },
    { id: 'dependabot_alert', handles: ['dependabot_alert'], message: DEPENDABOT_ALERT, sessionKey: ALERT_KEY('dependabot') },
    { id: 'code_scanning_alert', handles: ['code_scanning_alert'], message: CODE_SCANNING_ALERT, sessionKey: ALERT_KEY('code-scanning') },
    { id: 'secret_scanning_alert', handles: ['secret_scanning_alert'], message: SECRET_SCANNING_ALERT, sessionKey: ALERT_KEY('secret-scanning') },
    { id: 'security_advisory', handles: ['security_advisory'], message: SECURITY_ADVISORY, sessionKey: '{{#if security_advisory.ghsa_id}}hook:github:advisory:{{security_advisory.ghsa_id}}{{/if}}' },
  ],
  fallback: { message: FALLBACK, sessionKey: `{{#if repository.full_name}}hook:github:${REPO}{{/if}}` },
  example: {
    name: 'github',
    payload: {
      action: 'opened',
      number: 7,
      pull_request: {
        number: 7,
        title: 'Add retry to the uploader',
        state: 'open',
        draft: false,
        merged: false,
        html_url: 'https://github.com/octo-org/uploader/pull/7',
        body: 'Retries failed uploads three times.',
        head: { ref: 'retry' },
        base: { ref: 'main' },
      },
      repository: { full_name: 'octo-org/uploader', html_url: 'https://github.com/octo-org/uploader' },
      sender: { login: 'ada', type: 'User' },
    },
    headers: { 'x-github-event': 'pull_request' },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['ada opened pull request #7 in octo-org/uploader: Add retry to the uploader', 'https://github.com/octo-org/uploader/pull/7'],
      sessionKey: 'hook:github:octo-org/uploader#7',
    },
  },
});
