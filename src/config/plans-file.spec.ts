import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from './app-config';

const TEAM = {
  name: 'team',
  render_minutes_per_month: null,
  transcribe_minutes_per_month: 600,
  job: { frames: null, pixels_per_frame: 3840 * 2160, pixel_frames: null, elements: 1000, media_seconds: null },
  workspace: { webhooks: 50, api_keys: null, open_uploads: 500, projects: null, brand_kits: 50, concurrent_renders: 4 },
};

describe('PLANS_FILE and DEFAULT_PLAN', () => {
  let folder: string;
  const file = (name: string, content: unknown) => {
    const at = path.join(folder, name);
    writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
    return at;
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('loadConfig accepted the configuration');
  };

  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-plans-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('has only the built-in free plan, the default, without a file', () => {
    const { plans } = loadConfig({});
    expect(Object.keys(plans.plans)).toEqual(['free']);
    expect(plans.defaultPlan).toBe('free');
    expect(plans.plans.free.renderMinutesPerMonth).toBe(60);
  });

  it('adds the plans of the file, null meaning unlimited, and takes DEFAULT_PLAN', () => {
    const { plans } = loadConfig({ PLANS_FILE: file('ok.json', { plans: [TEAM] }), DEFAULT_PLAN: 'team' });
    expect(Object.keys(plans.plans)).toEqual(['free', 'team']);
    expect(plans.defaultPlan).toBe('team');
    expect(plans.plans.team).toMatchObject({ renderMinutesPerMonth: null, transcribeMinutesPerMonth: 600, job: { frames: null, elements: 1000 }, workspace: { apiKeys: null, concurrentRenders: 4 } });
  });

  it('fails with every problem listed: negative limits, missing keys, unknown keys, a reused name, an unknown default', () => {
    const broken = {
      plans: [
        { ...TEAM, render_minutes_per_month: -1, job: { ...TEAM.job, frames: -5 } },
        { ...TEAM, name: 'pro', workspace: { ...TEAM.workspace, brand_kits: undefined, concurent_renders: 2 } },
        { ...TEAM, name: 'free' },
        { ...TEAM, name: 'team' },
      ],
    };
    const problems = problemsOf({ PLANS_FILE: file('broken.json', broken), DEFAULT_PLAN: 'enterprise', SIGNUP_MODE: 'invite' });
    const text = problems.join('\n');
    expect(text).toMatch(/plans\[0\] \("team"\)\.render_minutes_per_month must be a number ≥ 0 or null/);
    expect(text).toMatch(/plans\[0\] \("team"\)\.job\.frames must be a number ≥ 0 or null/);
    expect(text).toMatch(/plans\[1\] \("pro"\)\.workspace\.brand_kits is missing/);
    expect(text).toMatch(/plans\[1\] \("pro"\)\.workspace has unknown key concurent_renders/);
    expect(text).toMatch(/DEFAULT_PLAN "enterprise" is not a plan/);
    expect(text).toMatch(/SIGNUP_MODE must be one of open, closed/);
    // The names are checked once the shapes are right: a second file with only those problems.
    const names = problemsOf({ PLANS_FILE: file('names.json', { plans: [{ ...TEAM, name: 'free' }, TEAM, TEAM] }) });
    expect(names).toEqual([
      expect.stringMatching(/plans\[0\] is named "free", the built-in plan/),
      expect.stringMatching(/plans\[2\] repeats the name "team"/),
    ]);
  });

  it('fails on a file that is missing or not JSON, and on concurrent_renders 0', () => {
    expect(problemsOf({ PLANS_FILE: path.join(folder, 'nope.json') })).toEqual([expect.stringMatching(/PLANS_FILE .*nope\.json cannot be read: ENOENT/)]);
    expect(problemsOf({ PLANS_FILE: file('bad.json', '{"plans": [') })).toEqual([expect.stringMatching(/PLANS_FILE .*bad\.json is not JSON/)]);
    expect(problemsOf({ PLANS_FILE: file('top.json', { plan: [] }) }).join('\n')).toMatch(/plans is missing/);
    const zero = problemsOf({ PLANS_FILE: file('zero.json', { plans: [{ ...TEAM, workspace: { ...TEAM.workspace, concurrent_renders: 0 } }] }) });
    expect(zero).toEqual([expect.stringMatching(/workspace\.concurrent_renders must be a whole number ≥ 1 or null/)]);
  });

  it('reads the signup policy, the admin key and retention', () => {
    const config = loadConfig({ SIGNUP_MODE: 'closed', SIGNUP_EMAIL_DOMAINS: 'Example.com, @acme.org', ADMIN_API_KEY: 'k'.repeat(32), RENDER_RETENTION_DAYS: '30' });
    expect(config.signup).toEqual({ mode: 'closed', emailDomains: ['example.com', 'acme.org'] });
    expect(config.adminApiKey).toBe('k'.repeat(32));
    expect(config.retention).toEqual({ renderDays: 30, assetDays: null, sweepMinutes: 60 });
    expect(loadConfig({}).signup).toEqual({ mode: 'open', emailDomains: [] });
    expect(loadConfig({}).adminApiKey).toBeNull();
    expect(problemsOf({ ADMIN_API_KEY: 'short', SIGNUP_EMAIL_DOMAINS: 'not a domain', ASSET_RETENTION_DAYS: '0', RETENTION_SWEEP_MINUTES: '90' })).toEqual([
      expect.stringMatching(/SIGNUP_EMAIL_DOMAINS must list domains/),
      expect.stringMatching(/ADMIN_API_KEY must be at least 32 characters/),
      expect.stringMatching(/ASSET_RETENTION_DAYS must be an integer from 1/),
      expect.stringMatching(/RETENTION_SWEEP_MINUTES must be below 60 or a whole number of hours/),
    ]);
  });
});
