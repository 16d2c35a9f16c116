// Writes /llms.txt and /llms-full.txt into dist/llms/ at build time, from the guides and the OpenAPI
// document this build just wrote (openapi/openapi.json), with the generator the service ships
// (dist/src/skills/llms-txt.js). The service serves these files, putting its public URL where
// LLMS_BASE_URL_TOKEN stands; test/mcp.e2e-spec.ts checks them against the generator's output.
require('reflect-metadata');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { llmsTxt, llmsFullTxt, LLMS_BASE_URL_TOKEN, LLMS_DIR } = require(path.join(root, 'dist/src/skills/llms-txt'));
const { SkillsService } = require(path.join(root, 'dist/src/skills/skills.service'));

const document = JSON.parse(readFileSync(path.join(root, 'openapi', 'openapi.json'), 'utf8'));
const skills = new SkillsService();
mkdirSync(LLMS_DIR, { recursive: true });
writeFileSync(path.join(LLMS_DIR, 'llms.txt'), llmsTxt(LLMS_BASE_URL_TOKEN, skills.list().data));
writeFileSync(path.join(LLMS_DIR, 'llms-full.txt'), llmsFullTxt(LLMS_BASE_URL_TOKEN, skills.all(), document));
console.log(`llms: wrote ${path.relative(root, LLMS_DIR)}/llms.txt and llms-full.txt (${skills.all().length} guides)`);
