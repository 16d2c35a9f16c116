#!/usr/bin/env node
'use strict';
// Launcher of the compiled CLI (clients/cli/dist), so that the bin link works before the first build.
let main;
try {
  ({ main } = require('../dist/main.js'));
} catch (error) {
  if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
  process.stderr.write('vrs is not built yet: run `npm run build` in the repository root\n');
  process.exit(2);
}
main(process.argv.slice(2)).then((code) => {
  // Keep-alive sockets would hold the process open; leave once stdout is flushed.
  process.stdout.write('', () => process.exit(code));
});
