import Type, { type Static } from 'typebox';
import { ModelCatalogField } from './catalog-schema.js';
import { defineProvider } from './define.js';
import { runProgram, type ProgramOutcome } from './command-process.js';
import { abortedError, ProviderError, type CompletionRequest, type CompletionResult, type Provider } from './types.js';

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** How much of the end of stderr goes into the error of a failed run. */
const STDERR_TAIL_CHARS = 500;
/** Kept from the parent environment when `inheritEnv` is false: enough to find and run programs. */
const MINIMAL_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'TMPDIR'] as const;

const CommandConfigSchema = Type.Object(
  {
    api: Type.Literal('command', { description: 'A local program: the prompt on stdin, the reply on stdout.' }),
    command: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'argv of the program, run without a shell: [program, ...args]. A relative program or path resolves against cwd.',
    }),
    env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Extra environment variables of the program (use ${ENV_VAR} for secrets).' })),
    inheritEnv: Type.Optional(
      Type.Boolean({ description: 'Default true: the program sees hookgate\'s environment. false: only PATH, HOME, LANG, TMPDIR, `env` and HOOKGATE_*.' }),
    ),
    cwd: Type.Optional(Type.String({ minLength: 1, description: 'Working directory of the program; default: hookgate\'s own.' })),
    input: Type.Optional(
      Type.Union([Type.Literal('text'), Type.Literal('json')], {
        description: 'Default `text`: `System: …`/`User: …`/`Assistant: …` blocks. `json`: one line {model, thinking, messages}.',
      }),
    ),
    models: ModelCatalogField,
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3_600_000, description: 'Upper bound of one call in ms, on top of the run\'s timeoutSeconds (reason `timeout`).' }),
    ),
    maxOutputBytes: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64 * 1024 * 1024, description: 'Largest stdout accepted (default 1 MiB); more kills the program (reason `process`).' }),
    ),
  },
  { additionalProperties: false, description: 'A local program that answers prompts.' },
);
export type CommandConfig = Static<typeof CommandConfigSchema>;

const ROLE_LABELS = { system: 'System', user: 'User', assistant: 'Assistant' } as const;

/** The program's stdin: text blocks separated by a blank line, or one JSON line. Ends with a newline. */
export function renderPrompt(request: Pick<CompletionRequest, 'model' | 'messages' | 'thinking'>, input: 'text' | 'json'): string {
  if (input === 'json') {
    const messages = request.messages.map(({ role, content }) => ({ role, content }));
    return `${JSON.stringify({ model: request.model, thinking: request.thinking ?? null, messages })}\n`;
  }
  return `${request.messages.map((message) => `${ROLE_LABELS[message.role]}: ${message.content}`).join('\n\n')}\n`;
}

export const commandProvider = defineProvider({
  api: 'command',
  summary: 'Runs a local program (no shell) per completion: prompt on stdin, reply on stdout; abort kills its process group.',
  configSchema: CommandConfigSchema,
  create(id, config) {
    return new CommandProvider(id, config);
  },
});

class CommandProvider implements Provider {
  readonly api = 'command';
  readonly id: string;
  private readonly config: CommandConfig;

  constructor(id: string, config: CommandConfig) {
    this.id = id;
    this.config = config;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const argv = this.config.command;
    const [file] = argv;
    if (file === undefined) throw new ProviderError('process', `provider "${this.id}": empty command`);
    const timeout = this.config.timeoutMs === undefined ? undefined : AbortSignal.timeout(this.config.timeoutMs);
    try {
      const outcome = await runProgram(this.id, {
        argv: [file, ...argv.slice(1)],
        env: this.environment(request),
        cwd: this.config.cwd,
        input: renderPrompt(request, this.config.input ?? 'text'),
        signal: timeout === undefined ? request.signal : AbortSignal.any([request.signal, timeout]),
        maxOutputBytes: this.config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      });
      return { text: this.reply(file, outcome) };
    } catch (error) {
      if (request.signal.aborted) throw abortedError(this.id);
      if (timeout?.aborted === true) throw new ProviderError('timeout', `provider "${this.id}": ${file} did not finish within ${this.config.timeoutMs} ms`);
      throw error;
    }
  }

  private environment(request: CompletionRequest): NodeJS.ProcessEnv {
    const base: NodeJS.ProcessEnv = {};
    if (this.config.inheritEnv === false) {
      for (const key of MINIMAL_ENV_KEYS) if (process.env[key] !== undefined) base[key] = process.env[key];
    } else {
      Object.assign(base, process.env);
    }
    return { ...base, ...this.config.env, HOOKGATE_MODEL: request.model, HOOKGATE_THINKING: request.thinking ?? '' };
  }

  private reply(file: string, outcome: ProgramOutcome): string {
    if (outcome.code === 0) return outcome.stdout.trim();
    const how = outcome.code === null ? `was killed by ${outcome.signal ?? 'a signal'}` : `exited with code ${outcome.code}`;
    const tail = stderrTail(outcome.stderr);
    const message = `provider "${this.id}": ${file} ${how}${tail === '' ? '' : `: ${tail}`}`;
    throw new ProviderError('process', message, outcome.code === null ? {} : { status: outcome.code });
  }
}

function stderrTail(stderr: string): string {
  // One line: the message ends up in logs and in the main session's `Hook <name> (error): …` event.
  const chars = Array.from(stderr.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim());
  return chars.slice(Math.max(0, chars.length - STDERR_TAIL_CHARS)).join('');
}
