import { describe, expect, it } from 'vitest';
import { agentIdProblem } from '../../src/actions/agent-id.js';
import { createActionBuilder } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { agentDefaults, engineWith } from '../mapping/support.js';

const cases: Array<{ agentId: string; allowed: string[] | undefined; problem: string | undefined }> = [
  { agentId: 'main', allowed: undefined, problem: undefined },
  { agentId: 'main', allowed: ['*'], problem: undefined },
  { agentId: 'main', allowed: ['main', 'ops'], problem: undefined },
  { agentId: 'main', allowed: ['ops'], problem: 'agentId "main" is not in hooks.allowedAgentIds' },
  { agentId: 'ops', allowed: ['ops'], problem: 'agentId "ops": Hookgate runs one agent, "main"' },
  { agentId: ' main', allowed: undefined, problem: 'agentId " main": Hookgate runs one agent, "main"' },
  { agentId: 'Main', allowed: ['*'], problem: 'agentId "Main": Hookgate runs one agent, "main"' },
];

describe('an agentId, from a request or a mapping', () => {
  it.each(cases)('$agentId with allowedAgentIds $allowed: $problem', ({ agentId, allowed, problem }) => {
    expect(agentIdProblem(agentId, allowed)).toBe(problem);
  });

  it.each(cases)('a request naming $agentId (allowed $allowed) is refused with the same reason, as a 400', ({ agentId, allowed, problem }) => {
    const builder = createActionBuilder({ models: createModelPolicy(agentDefaults()), allowedAgentIds: allowed });
    const build = () => builder.agent({ message: 'hi', agentId }, { origin: { hook: 'agent' }, via: 'direct', content: { source: 'Webhook' } });
    if (problem === undefined) expect(build().kind).toBe('agent');
    else expect(build).toThrow(expect.objectContaining({ code: 'INVALID_BODY', message: problem }));
  });

  it.each(cases)('a mapping naming $agentId (allowed $allowed) fails to load with the same reason', async ({ agentId, allowed, problem }) => {
    const loading = engineWith({ mappings: [{ id: 'm', messageTemplate: 'x', agentId }], hooks: allowed === undefined ? {} : { allowedAgentIds: allowed } });
    if (problem === undefined) await expect(loading).resolves.toBeDefined();
    else await expect(loading).rejects.toThrow(`/hooks/mappings/0/agentId: mapping "m": ${problem}`);
  });
});
