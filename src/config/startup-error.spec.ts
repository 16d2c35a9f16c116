import { describeStartupFailure, needsDetail, StartupError } from './startup-error';

describe('describeStartupFailure', () => {
  const embedded = { port: 8080, host: '0.0.0.0', databaseUrl: null };
  const external = { ...embedded, databaseUrl: 'postgres://app:secret@db.internal:6543/app' };

  it('puts the common failures in terms of the setting to change', () => {
    expect(describeStartupFailure(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' }), embedded)).toBe(
      'Port 8080 on 0.0.0.0 is already in use. Stop what listens there, or set PORT to a free port.',
    );
    const refused = describeStartupFailure(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6543'), { code: 'ECONNREFUSED' }), external);
    expect(refused).toContain('Could not reach the PostgreSQL server of DATABASE_URL (db.internal:6543/app)');
    expect(refused).toContain('unset DATABASE_URL to use the embedded PostgreSQL');
    expect(refused).not.toContain('secret');
    const denied = describeStartupFailure(Object.assign(new Error('password authentication failed for user "app"'), { code: '28P01' }), external);
    expect(denied).toContain('Correct the user, password or database name in DATABASE_URL');
    for (const line of [refused, denied]) expect(needsDetail(line)).toBe(false);
  });

  it('keeps our own explanation, and never prints undefined', () => {
    expect(describeStartupFailure(new StartupError('What failed', 'What to change'), embedded)).toBe('What failed. What to change');
    for (const thrown of [undefined, null, '', {}]) {
      const line = describeStartupFailure(thrown, embedded);
      expect(line).not.toContain('undefined');
      expect(needsDetail(line)).toBe(true);
    }
  });
});
