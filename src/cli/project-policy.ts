/**
 * The project policy file as `config check` and `explain` show it: whether its root is trusted, and what each key it
 * set did (applied, or ignored and why). A repository's file may only tighten the user's policy (config/project-layer.ts),
 * so the user can see at a glance what a cloned project changed.
 */
import { loadPolicy, type ProjectLayer } from '../config/load.js';
import { paths, type Env } from '../io/paths.js';

export function projectPolicyLines(project: ProjectLayer | null, userFile: string): string[] {
  if (!project) return ['project policy: none'];
  const how = project.trusted
    ? 'trusted (its root is in trustedProjects), may loosen'
    : `may only tighten (its root is not in trustedProjects in ${userFile})`;
  const lines = [`project policy: ${project.file}: ${how}`];
  if (project.error) lines.push(`  ignored whole file: ${project.error}`);
  for (const e of project.effects) lines.push(`  ${e.applied ? 'applied' : 'ignored'} ${e.key}: ${e.why}`);
  if (!project.error && project.effects.length === 0) lines.push('  sets nothing');
  return lines;
}

/** For `explain`: the project layer of the policy the decision used, loaded again (a CLI run; the cost is a read). */
export function explainProjectPolicy(env: Env, cwd: string): { project: ProjectLayer | null; text: string } {
  const { project } = loadPolicy(env, cwd);
  return { project, text: `${projectPolicyLines(project, paths(env).config).join('\n')}\n` };
}
