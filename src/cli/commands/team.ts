/**
 * `tiergate team init`: creates or upgrades the team ledger's schema in PostgreSQL (src/team/schema.ts), as a role
 * that may create a schema; pushers need INSERT/UPDATE/DELETE on its tables, readers SELECT (docs/team.md).
 */
import { connectTeam, serverOf, TeamError } from '../../team/pg.js';
import { migrateTeam, TEAM_SCHEMA, TEAM_SCHEMA_VERSION } from '../../team/schema.js';
import { teamSettings } from '../../team/settings.js';
import { paths } from '../../io/paths.js';
import { parseCommandFlags, usageError } from '../args.js';

export const USAGE = `Usage: tiergate team init [--json]
  Creates (or upgrades) the '${TEAM_SCHEMA}' schema of the team ledger at team.url (user policy file) or
  TIERGATE_TEAM_URL, as a role allowed to create a schema in that database. Safe to run again.`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('team', USAGE, argv, { json: { type: 'boolean' } }, true);
  if (!parsed) return 2;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'init') {
    return usageError(
      'team',
      positionals.length
        ? `unknown subcommand '${positionals[0]}' (team has one: init)`
        : 'missing subcommand: tiergate team init',
    );
  }
  const env = process.env;
  const settings = teamSettings(env);
  for (const d of settings.diagnostics) process.stderr.write(`tiergate: ${d}\n`);
  if (!settings.url) {
    process.stderr.write(
      `tiergate team: no team ledger configured: set team.url in ${paths(env).config} (or TIERGATE_TEAM_URL)\n`,
    );
    return 1;
  }
  const server = serverOf(settings.url);
  try {
    const db = await connectTeam(settings.url, { env });
    try {
      const r = await migrateTeam(db);
      if (values.json)
        process.stdout.write(`${JSON.stringify({ server, schema: TEAM_SCHEMA, from: r.from, to: r.to }, null, 2)}\n`);
      else {
        process.stdout.write(
          r.from === r.to
            ? `tiergate team: ${server}: schema '${TEAM_SCHEMA}' already at version ${TEAM_SCHEMA_VERSION}\n`
            : `tiergate team: ${server}: schema '${TEAM_SCHEMA}' ${r.from === 0 ? 'created' : `upgraded from version ${r.from}`} (version ${r.to})\n`,
        );
      }
      return 0;
    } finally {
      await db.end();
    }
  } catch (err) {
    if (!(err instanceof TeamError)) throw err;
    process.stderr.write(`tiergate team: ${err.message}\n`);
    return 1;
  }
}
