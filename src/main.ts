import 'reflect-metadata';
import { ConfigError, loadConfig, Role } from './config/app-config';
import { createApp, listen } from './bootstrap';

const ROLES: Role[] = ['api', 'worker', 'all'];

/** `node dist/src/main.js [api|worker|all]` (default all); ROLE in the environment does the same. */
async function main(): Promise<void> {
  const requested = process.argv[2] ?? process.env.ROLE ?? 'all';
  if (!ROLES.includes(requested as Role)) {
    console.error(`Unknown role "${requested}"; use one of ${ROLES.join(', ')}`);
    process.exit(2);
  }
  const role = requested as Role;
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const running = await createApp(config, role);
  await listen(running, config, role);
}

main().catch((error) => {
  console.error('Start-up failed:', error);
  process.exit(1);
});
