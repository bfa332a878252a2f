/**
 * `npm run postman`: writes postman/logos-a2a.postman_collection.json and postman/logos-a2a.postman_environment.json
 * from openapi/openapi.json (scripts/postman/collection.ts says how). Run it after every change of the document;
 * test/a2a/postman.test.ts fails while the committed files differ from what it makes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { POSTMAN_FILES, postmanFiles, postmanJson } from './postman/collection.ts';

const root = new URL('..', import.meta.url);
const files = await postmanFiles(JSON.parse(readFileSync(new URL('openapi/openapi.json', root), 'utf8')));
writeFileSync(new URL(POSTMAN_FILES.collection, root), postmanJson(files.collection));
writeFileSync(new URL(POSTMAN_FILES.environment, root), postmanJson(files.environment));
