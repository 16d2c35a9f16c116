// Imported first: the page runs under a CSP without 'unsafe-eval'. zod probes for eval with a
// caught `new Function`, which the browser still reports as a violation; jitless skips the probe.
import { z } from 'zod';

z.config({ jitless: true });
