// Lints Cypher statements with Neo4j's own parser and semantic analysis
// (@neo4j-cypher/language-support, the front-end of Neo4j's editors).
//
// stdin:  {"schema": {labels, relationshipTypes, propertyKeys},
//          "statements": [{"name", "index", "text", "parameters": {name: type}}]}
// stdout: [{"name", "index", "severity": "error"|"warning", "line", "column", "message"}]
//
// The caller (tests/test_cypher_lint.py) reads the .cypher files with citegraph's own
// loader, which owns the header format and the statement split; this script only lints.
import { readFileSync } from 'node:fs';
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

// A sample value per declared type: the linter checks only that a parameter is defined.
const SAMPLE = { int: 0, float: 0.0, string: '', id: '', bool: false, list: [], map: {} };
const VERSION = 'CYPHER 5';

// Neo4j 5's built-in functions and procedures, from the SHOW FUNCTIONS / SHOW PROCEDURES
// catalogue the package records; plugins (APOC, GDS) are left out, as they are in the
// Neo4j community image citegraph targets, so a call to one is an error.
function builtIns(registry) {
  return Object.fromEntries(
    Object.entries(registry[VERSION]).filter(([name, f]) => f.isBuiltIn ?? !/^(apoc|gds)\./.test(name)),
  );
}
const functions = { [VERSION]: builtIns(testData.mockSchema.functions) };
const procedures = { [VERSION]: builtIns(testData.mockSchema.procedures) };

const job = JSON.parse(readFileSync(0, 'utf8'));
const found = [];
for (const { name, index, text, parameters } of job.statements) {
  const schema = {
    ...job.schema,
    functions,
    procedures,
    defaultLanguage: VERSION,
    parameters: Object.fromEntries(Object.entries(parameters).map(([p, type]) => [p, SAMPLE[type]])),
  };
  for (const d of lintCypherQuery(text, schema).diagnostics) {
    found.push({
      name,
      index,
      severity: d.severity === 1 ? 'error' : 'warning',
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      message: d.message,
    });
  }
}
process.stdout.write(JSON.stringify(found));
