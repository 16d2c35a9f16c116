// Generates schema-valid request values from an OpenAPI document with json-schema-faker, an outside
// JSON Schema data generator (ESM only, so it runs here in plain Node, not inside jest).
//   node test/helpers/schema-samples.mjs < {"document": {...}, "plans": [{"id", "schema", "count", "seed"}]}
// prints {"<id>": [value, ...]}. Each value is checked with Ajv against the same schema: one the
// generator got wrong, or could not make (it throws on some keyword mixes), is left out and counted
// in "_invalid", so the service is only ever sent values the document allows. Same input and
// seeds, same output.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { createGeneratorSync } from 'json-schema-faker';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { document, plans } = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
addFormats(ajv);
ajv.addSchema({ components: document.components }, 'doc.json');

const out = { _invalid: {} };
for (const plan of plans) {
  // Refs are '#/components/schemas/…': the schema travels with the document's components.
  const root = { ...plan.schema, components: document.components };
  const validate = ajv.compile(JSON.parse(JSON.stringify(plan.schema).replaceAll('"#/components/', '"doc.json#/components/')));
  const generator = createGeneratorSync({ seed: plan.seed, optionalsProbability: 0.6, maxDefaultItems: 3 });
  const values = [];
  let invalid = 0;
  for (let i = 0; i < plan.count; i++) {
    let value;
    try {
      value = generator.generate(root);
    } catch {
      invalid += 1;
      continue;
    }
    if (validate(value)) values.push(value);
    else invalid += 1;
  }
  out[plan.id] = values;
  if (invalid > 0) out._invalid[plan.id] = invalid;
}
process.stdout.write(JSON.stringify(out));
