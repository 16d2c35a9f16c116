#!/usr/bin/env node
// Launcher of the compiled CLI (clients/cli/dist), so that the bin link exists before the first build.
let main;
try {
  ({ main } = await import('../dist/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  process.stderr.write('vrs is not built yet: run `npm run build` in the repository root\n');
  process.exit(2);
}
const code = await main(process.argv.slice(2));
// Keep-alive sockets would hold the process open; leave once stdout is flushed.
process.stdout.write('', () => process.exit(code));
