import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { ChildPriority } from './child-priority';

describe('ChildPriority', () => {
  it('lowers the priority of the processes this one started and of theirs, once', async () => {
    // A shell that starts a sleep of its own: a child and a grandchild.
    const own = getPriority();
    const shell = spawn('sh', ['-c', 'sleep 30 & wait'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const priority = new ChildPriority(10);
      expect(await priority.sweep()).toBeGreaterThanOrEqual(2);
      expect(getPriority(shell.pid!)).toBe(10);
      const grandchild = Number(readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').trim());
      expect(getPriority(grandchild)).toBe(10);
      expect(getPriority()).toBe(own);
      expect(await priority.sweep()).toBe(0);
      process.kill(grandchild, 'SIGKILL');
    } finally {
      shell.kill('SIGKILL');
    }
  });
});
