/** The team URL's password never reaches a message: URL redaction, text redaction, and every error as one line. */
import { describe, expect, it } from 'vitest';
import { describeTeamError, redactText, redactUrl, serverOf, TeamError } from '../../../src/team/pg.js';

const SECRET = 's3cr@t/p:w';
const URL_WITH = `postgres://alice:${encodeURIComponent(SECRET)}@db.internal:6432/team?sslmode=verify-full&application_name=x`;

const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('redaction', () => {
  it('the URL as shown: password replaced, the rest kept; no user or password in serverOf', () => {
    expect(redactUrl(URL_WITH)).toBe(
      'postgres://alice:***@db.internal:6432/team?sslmode=verify-full&application_name=x',
    );
    expect(redactUrl('postgres://bob@h/db?password=hunter2')).toBe('postgres://bob@h/db?password=***');
    expect(redactUrl('not a url at all')).not.toContain('not a url');
    expect(serverOf(URL_WITH)).toBe('db.internal:6432/team');
  });

  it('text quoting the password, raw or URL-encoded, or any user:password@ loses it', () => {
    const text = `could not parse ${URL_WITH} (password ${SECRET}) near postgres://other:pw2@h2/db`;
    const out = redactText(text, URL_WITH);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(encodeURIComponent(SECRET));
    expect(out).not.toContain('pw2');
    expect(out).toContain('postgres://other:***@h2/db');
  });

  it('every error is one line naming the server, without the password', () => {
    const cases: [Error, RegExp][] = [
      [
        err('connect ECONNREFUSED 10.0.0.1:6432', 'ECONNREFUSED'),
        /^cannot connect to db\.internal:6432\/team: connection refused$/,
      ],
      [
        err('getaddrinfo ENOTFOUND db.internal', 'ENOTFOUND'),
        /^cannot connect to db\.internal:6432\/team: host not found$/,
      ],
      [
        err('Connection terminated due to connection timeout'),
        /^cannot connect to db\.internal:6432\/team: timed out$/,
      ],
      [
        err('password authentication failed for user "alice"', '28P01'),
        /^db\.internal:6432\/team: password authentication failed for user "alice"$/,
      ],
      [
        err('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
        /asks for a password and none was found/,
      ],
      [
        err('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'),
        /^TLS with db\.internal:6432\/team failed: self-signed certificate$/,
      ],
      [err('Connection terminated unexpectedly'), /^connection to db\.internal:6432\/team lost: /],
      [
        err('permission denied for table completions', '42501'),
        /permission denied for table completions \(SQLSTATE 42501\)$/,
      ],
      [
        err(`syntax error\nat ${URL_WITH}\n  and ${SECRET}`),
        /^db\.internal:6432\/team: syntax error at postgres:\/\/alice:\*\*\*@/,
      ],
      [new TeamError(`already one line, but ${SECRET}`), /^already one line, but \*\*\*$/],
    ];
    for (const [e, want] of cases) {
      const line = describeTeamError(e, URL_WITH);
      expect(line, e.message).toMatch(want);
      expect(line).not.toMatch(/\n/);
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(encodeURIComponent(SECRET));
    }
  });
});
