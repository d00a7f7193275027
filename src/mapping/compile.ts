import { HookError, type ConfigIssue } from '../errors.js';
import { agentIdProblem } from '../actions/agent-id.js';
import { unknownChannelMessage, type ActionBuilder } from '../actions/build.js';
import { compileSignature, type CompiledSignature } from '../auth/signatures/index.js';
import { normalizeChannelName } from '../channels/index.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import { buildTemplateContext, isForbiddenKey, toSafeRecord } from './context.js';
import { compileRequired } from './required-fields.js';
import { FIELD_POINTERS, type CompiledMapping, type TemplatedField } from './compiled.js';
import type { MappingSource } from './mapping-records.js';
import { TemplateSyntaxError, type CompiledTemplate, type TemplateCompiler } from './template.js';
import { compileAdmission } from '../admission/compile-admission.js';
import { TransformLoadError, type TransformHandle, type TransformPort } from './transform-port.js';
import { compileLimits } from '../admission/compile-limits.js';
import { runLimitOwnerOf } from '../admission/limit-views.js';
import { compileOwnMessages } from '../admission/own-messages.js';
import { compileSecretHeaderAccess, compileSecretQueryAccess } from './secret-header-access.js';

export interface CompileDeps {
  templates: TemplateCompiler;
  builder: ActionBuilder;
  transforms: TransformPort | undefined;
  /** hooks.allowedAgentIds; undefined allows any id (and Hookgate's one agent is `main`). */
  allowedAgentIds?: readonly string[] | undefined;
}

export interface CompileResult {
  mapping: CompiledMapping | undefined;
  issues: ConfigIssue[];
  warnings: string[];
}

/** Names the HTTP layer routes itself; a mapping for them could never be reached. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['wake', 'agent']);

export function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** Checks one mapping record, compiles its templates and loads its transform; collects every problem. */
export async function compileMapping(source: MappingSource, deps: CompileDeps): Promise<CompileResult> {
  const { config, pointer } = source;
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const who = source.subject ?? `mapping "${source.id}"`;
  const problem = (field: string, message: string): void => {
    issues.push({ path: `${pointer}/${field}`, message: `${who}: ${message}` });
  };
  const path = checkPath(config, problem);
  const templates = compileTemplates(config, deps.templates, problem);
  checkContentSource(config, problem, warnings, source.id);
  checkStaticFields(config, deps.builder, problem);
  checkSessionFields(config, source.id, deps.builder, problem);
  checkAgentId(config.agentId, deps.allowedAgentIds, problem);
  if (config.forEach !== undefined && isForbiddenKey(config.forEach)) problem('forEach', `"${config.forEach}" cannot be a forEach field`);
  const limits = compileLimits(config, runLimitOwnerOf(source.id, source.limitOwner), deps.templates, problem, (message) => warnings.push(`${who}: ${message}`));
  const transform = await loadTransform(config, deps.transforms, problem);
  const signature = checkSignature(config, problem);
  const warnOfAccess = (message: string) => warnings.push(`mapping "${source.id}": ${message}`);
  const allowSecretHeaders = compileSecretHeaderAccess(config.allowSecretHeaders, signature, problem, warnOfAccess);
  const allowSecretQuery = compileSecretQueryAccess(config.allowSecretQuery, problem, warnOfAccess);
  const admission = compileAdmission(config, deps.templates, problem);
  const required = compileRequired(config.required, (message) => problem('required', message));
  const ownMessages = compileOwnMessages(config, deps.templates, problem, ownChannel(config, problem));
  if ((config.action ?? 'agent') === 'wake') {
    const unused = (['sessionKey', 'sessionMode', 'agentId'] as const).filter((field) => config[field] !== undefined);
    if (unused.length > 0) warnings.push(`mapping "${source.id}": ${unused.join(', ')} ${unused.length === 1 ? 'is' : 'are'} not used by a wake mapping (a wake event always goes to the main session)`);
  }
  if (config.action === 'notify') {
    const unused = UNUSED_BY_NOTIFY.filter((field) => config[field] !== undefined);
    if (unused.length > 0) warnings.push(`mapping "${source.id}": ${unused.join(', ')} ${unused.length === 1 ? 'is' : 'are'} not used by a notify mapping (no model, no session, no envelope)`);
  } else if (config.allowUnsafeExternalContent === true) {
    warnings.push(`mapping "${source.id}" (${source.label}) sets allowUnsafeExternalContent: its payloads reach the agent without the untrusted-content envelope`);
  }
  if (issues.length > 0) return { mapping: undefined, issues, warnings };
  const mapping: CompiledMapping = {
    id: source.id,
    label: source.label,
    path,
    source: config.match?.source,
    action: config.action ?? 'agent',
    wakeMode: config.wakeMode,
    deliver: config.deliver,
    channel: config.channel,
    skipWithoutRecipient: config.noRecipient === 'skip',
    timeoutSeconds: config.timeoutSeconds,
    templates,
    trusted: config.allowUnsafeExternalContent === true,
    envelopeSource: config.envelope?.source ?? 'Webhook',
    forEach: config.forEach,
    transform,
    signature,
    allowSecretHeaders,
    allowSecretQuery,
    persistentSessionKey: config.sessionMode === 'persistent' ? persistentKey(source.id) : undefined,
    admission,
    ownMessages,
    required,
    blankRenders: blankRenders(config, templates),
    ...limits,
    ...handoffOf(config),
  };
  return { mapping, issues, warnings };
}

type Problem = (field: string, message: string) => void;

/** The channel of `ownMessages` by its canonical name (`teams` is `msteams`); `last` names no channel. */
function ownChannel(config: MappingConfig, problem: Problem): string | undefined {
  if (config.ownMessages === undefined) return undefined;
  const name = normalizeChannelName(config.ownMessages.channel);
  if (name !== undefined && name !== 'last') return name;
  problem('ownMessages/channel', name === 'last' ? 'ownMessages.channel names the channel the service posts with, not "last"' : unknownChannelMessage(config.ownMessages.channel));
  return undefined;
}

/** The mapping's targets; names are checked with the whole config (src/config/target-references.ts). */
function handoffOf(config: MappingConfig): { handoff?: CompiledMapping['handoff'] } {
  const { forward, callback, allowRequestCallback } = config;
  if (forward === undefined && callback === undefined && allowRequestCallback === undefined) return {};
  return { handoff: { forward, callback, requestCallbacks: allowRequestCallback } };
}

function checkPath(config: MappingConfig, problem: Problem): string | undefined {
  if (config.match?.path === undefined) return undefined;
  const path = trimSlashes(config.match.path);
  if (path === '') problem('match/path', 'match.path is empty once slashes are trimmed');
  else if (RESERVED_NAMES.has(path)) problem('match/path', `"${path}" is a built-in endpoint and cannot be mapped`);
  return path;
}

function templateSources(config: MappingConfig): Record<TemplatedField, string | undefined> {
  return {
    text: config.textTemplate,
    message: config.messageTemplate,
    name: config.name,
    sessionKey: config.sessionKey,
    to: config.to,
    model: config.model,
    thinking: config.thinking,
    from: config.envelope?.from,
    subject: config.envelope?.subject,
  };
}

function compileTemplates(config: MappingConfig, compiler: TemplateCompiler, problem: Problem): Partial<Record<TemplatedField, CompiledTemplate>> {
  const compiled: Partial<Record<TemplatedField, CompiledTemplate>> = {};
  for (const [field, text] of Object.entries(templateSources(config)) as Array<[TemplatedField, string | undefined]>) {
    if (text === undefined) continue;
    try {
      compiled[field] = compiler.compile(text);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      problem(FIELD_POINTERS[field], `${FIELD_POINTERS[field].replace('/', '.')} does not compile: ${error.message}`);
    }
  }
  return compiled;
}

/** Each template with a `{{` rendered against an empty payload: only its literal text remains. */
function blankRenders(config: MappingConfig, templates: Partial<Record<TemplatedField, CompiledTemplate>>): Partial<Record<TemplatedField, string>> {
  const blank: Partial<Record<TemplatedField, string>> = {};
  const empty = buildTemplateContext(toSafeRecord({}), { headers: toSafeRecord({}), query: toSafeRecord({}), path: '', now: '' });
  for (const [field, text] of Object.entries(templateSources(config)) as Array<[TemplatedField, string | undefined]>) {
    const template = templates[field];
    if (text === undefined || template === undefined || !text.includes('{{')) continue;
    try {
      blank[field] = template(empty);
    } catch {
      // a template that needs its fields to render at all is not literal-only
    }
  }
  return blank;
}

/** An action needs its text from somewhere: its template, or a transform that returns it. */
function checkContentSource(config: MappingConfig, problem: Problem, warnings: string[], id: string): void {
  const action = config.action ?? 'agent';
  const [own, other] = action === 'agent' ? (['messageTemplate', 'textTemplate'] as const) : (['textTemplate', 'messageTemplate'] as const);
  const article = ACTION_ARTICLES[action];
  if (config.transform !== undefined) return;
  if (config[own] === undefined) {
    problem(own, `${article} mapping needs ${own} (or a transform that returns ${action === 'agent' ? 'message' : 'text'})`);
  }
  if (config[other] !== undefined) warnings.push(`mapping "${id}": ${other} is ignored by ${article} mapping without a transform`);
}

const ACTION_ARTICLES = { agent: 'an agent', wake: 'a wake', notify: 'a notify' } as const;
/** Fields a notify never reads: it calls no model and has no session. */
const UNUSED_BY_NOTIFY = ['sessionKey', 'sessionMode', 'agentId', 'model', 'thinking', 'timeoutSeconds', 'wakeMode', 'deliver', 'noRecipient', 'envelope', 'allowUnsafeExternalContent', 'forward'] as const;

/**
 * Channel and a model without template syntax are known at load, so a typo or a model outside
 * the allow-list fails at start-up, not on the first request. The model goes through the
 * builder (pure) so the rule is the builder's own, aliases included.
 */
function checkStaticFields(config: MappingConfig, builder: ActionBuilder, problem: Problem): void {
  if (config.channel !== undefined && normalizeChannelName(config.channel) === undefined) {
    problem('channel', unknownChannelMessage(config.channel));
  }
  const model = config.model;
  if (model === undefined || model.includes('{{') || model.trim() === '') return;
  try {
    builder.agent({ message: 'probe', model }, { origin: { hook: 'probe' }, via: 'mapped', content: 'trusted' });
  } catch (error) {
    if (!(error instanceof HookError)) throw error;
    problem('model', error.message);
  }
}

function checkSignature(config: MappingConfig, problem: Problem): CompiledSignature | undefined {
  if (config.signature === undefined) return undefined;
  const { signature, problems } = compileSignature(config.signature);
  for (const issue of problems) problem(`signature/${issue.field}`, issue.message);
  return signature;
}

/** The one session of a `sessionMode: "persistent"` mapping's runs that name no key. */
export function persistentKey(mappingId: string): string {
  return `hook:mapping:${mappingId}`;
}

/**
 * What is known of a session key at load: a literal key, or the literal text before its first
 * `{{`, must fit hooks.allowedSessionKeyPrefixes (rendered keys are checked at admission).
 */
function checkSessionFields(config: MappingConfig, id: string, builder: ActionBuilder, problem: Problem): void {
  const template = config.sessionKey;
  if (template !== undefined) {
    const open = template.indexOf('{{');
    const literal = (open === -1 ? template : template.slice(0, open)).trimStart();
    const reason = literal === '' && open !== -1 ? undefined : builder.sessions.loadProblem(open === -1 ? literal.trim() : literal, open === -1);
    if (reason !== undefined) problem('sessionKey', `sessionKey ${reason}`);
  }
  if (config.sessionMode === 'persistent') {
    const reason = builder.sessions.loadProblem(persistentKey(id), true);
    if (reason !== undefined) problem('sessionMode', `sessionMode "persistent" uses the session ${reason}; set sessionKey instead`);
  }
}

function checkAgentId(agentId: string | undefined, allowed: readonly string[] | undefined, problem: Problem): void {
  const found = agentId === undefined ? undefined : agentIdProblem(agentId, allowed);
  if (found !== undefined) problem('agentId', found);
}

async function loadTransform(config: MappingConfig, port: TransformPort | undefined, problem: Problem): Promise<TransformHandle | undefined> {
  if (config.transform === undefined) return undefined;
  if (port === undefined) {
    problem('transform', 'uses a transform but no transform sandbox is available');
    return undefined;
  }
  const spec = config.transform.export === undefined ? { module: config.transform.module } : { module: config.transform.module, export: config.transform.export };
  try {
    return await port.load(spec);
  } catch (error) {
    problem('transform', loadFailure(spec.module, error));
    return undefined;
  }
}

/** Names the module and its file once, then the problem (not the sandbox's own wrapped message). */
function loadFailure(module: string, error: unknown): string {
  if (error instanceof TransformLoadError) {
    return `transform "${module}"${error.file === undefined ? '' : ` (${error.file})`} cannot be loaded: ${error.problem}`;
  }
  return `transform "${module}" cannot be loaded: ${error instanceof Error ? error.message : String(error)}`;
}
