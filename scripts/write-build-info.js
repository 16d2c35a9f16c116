// Records the commit and build time for GET /v1/version (dist/build-info.json).
const { execSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');

let commit = process.env.GIT_COMMIT || null;
if (!commit) {
  try {
    commit = execSync('git rev-parse HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    commit = null;
  }
}
writeFileSync('dist/build-info.json', JSON.stringify({ commit, built_at: new Date().toISOString() }, null, 2) + '\n');
