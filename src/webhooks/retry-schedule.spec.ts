import { ConfigError, loadConfig } from '../config/app-config';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, parseRetrySchedule } from '../config/retry-schedule';
import { retryDelayAfter } from './retry-schedule';

describe('webhook retry schedule', () => {
  it('parses comma-separated seconds, spaces allowed', () => {
    expect(parseRetrySchedule('1,1,1')).toEqual({ delays: [1, 1, 1] });
    expect(parseRetrySchedule(' 5, 300 ,1800')).toEqual({ delays: [5, 300, 1800] });
    expect(parseRetrySchedule('0')).toEqual({ delays: [0] });
  });

  it('refuses anything but whole seconds up to a week, and more than 20 retries', () => {
    for (const raw of ['1,,2', '1.5', '-1', 'five', '1;2', '604801', '1,2,']) {
      expect(parseRetrySchedule(raw)).toEqual({ problem: expect.stringContaining('WEBHOOK_RETRY_SCHEDULE') });
    }
    expect(parseRetrySchedule(Array(21).fill('1').join(','))).toEqual({ problem: expect.stringContaining('at most 20') });
    expect(parseRetrySchedule(Array(20).fill('1').join(','))).toEqual({ delays: Array(20).fill(1) });
  });

  it('defaults to the documented schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so 8 attempts', () => {
    expect(DEFAULT_RETRY_SCHEDULE_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((attempts) => retryDelayAfter(DEFAULT_RETRY_SCHEDULE_SECONDS, attempts));
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000, null]);
  });

  it('is read from the environment with the other webhook settings', () => {
    expect(loadConfig({}).webhooks).toEqual({ timeoutSeconds: 10, retryScheduleSeconds: [...DEFAULT_RETRY_SCHEDULE_SECONDS], allowHttp: false });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_S: '1', ALLOW_HTTP_WEBHOOKS: 'true' }).webhooks).toEqual({
      timeoutSeconds: 1,
      retryScheduleSeconds: [1, 1, 1],
      allowHttp: true,
    });
    const bad = () => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5,soon', WEBHOOK_TIMEOUT_S: '0', ALLOW_HTTP_WEBHOOKS: 'yes' });
    expect(bad).toThrow(ConfigError);
    for (const name of ['WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT_S', 'ALLOW_HTTP_WEBHOOKS']) expect(bad).toThrow(name);
  });
});
