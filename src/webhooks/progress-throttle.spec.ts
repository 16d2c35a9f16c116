import { ProgressThrottle } from './progress-throttle';

describe('progress throttle', () => {
  it('lets one event through per 5 percentage points or 2 seconds, and nothing unchanged', () => {
    const throttle = new ProgressThrottle();
    const t0 = 1_000_000;
    expect(throttle.shouldSend('render_1', 0, 'downloading', t0)).toBe(true);
    expect(throttle.shouldSend('render_1', 3, 'compositing', t0 + 100)).toBe(false); // 3 points, 0.1 s
    expect(throttle.shouldSend('render_1', 5, 'compositing', t0 + 200)).toBe(true); // 5 points
    expect(throttle.shouldSend('render_1', 6, 'compositing', t0 + 2100)).toBe(false); // 1.9 s after the last one
    expect(throttle.shouldSend('render_1', 6, 'compositing', t0 + 2200)).toBe(true); // 2 s
    expect(throttle.shouldSend('render_1', 6, 'compositing', t0 + 9000)).toBe(false); // nothing new to say
    expect(throttle.shouldSend('render_2', 50, 'encoding', t0 + 9000)).toBe(true); // jobs are independent
  });

  it('starts afresh once the job has ended', () => {
    const throttle = new ProgressThrottle();
    expect(throttle.shouldSend('render_1', 10, 'encoding', 0)).toBe(true);
    throttle.forget('render_1');
    expect(throttle.shouldSend('render_1', 11, 'encoding', 1)).toBe(true);
  });
});
