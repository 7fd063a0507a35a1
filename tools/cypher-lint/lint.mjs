// Lints Cypher statements with Neo4j's own parser and semantic analysis
// (@neo4j-cypher/language-support, the front-end of Neo4j's editors).
//
// stdin:  {"schema": {labels, relationshipTypes, propertyKeys},
//          "statements": [{"name", "index", "text", "parameters": {name: type}, "mode": "read"|"write"}]}
// stdout: [{"name", "index", "severity": "error"|"warning", "line", "column", "message"}]
//
// The caller (tests/test_cypher_lint.py) reads the .cypher files with citegraph's own
// loader, which owns the header format and the statement split; this script only lints,
// and checks each header's declared access mode against the parse tree.
import { readFileSync } from 'node:fs';
import { getDebugTree, lintCypherQuery, testData } from '@neo4j-cypher/language-support';

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

// Parse-tree rules that update the graph or its schema: a statement holding one needs a
// write transaction (Neo4j refuses it in a read one, and a cluster routes it to the leader).
const UPDATING = new Set([
  'createClause', 'insertClause', 'mergeClause', 'setClause', 'removeClause', 'deleteClause', 'foreachClause',
  'createCommand', 'dropCommand', 'alterCommand', 'renameCommand', 'grantCommand', 'denyCommand', 'revokeCommand',
  'enableServerCommand', 'allocationCommand', 'terminateCommand',
]);

const textOf = (node) => (node.children?.length ? node.children.map(textOf).join('') : node.name);

// What in a statement needs a write transaction, and whether it commits by itself
// (CALL { } IN TRANSACTIONS, which runs only in an auto-commit transaction).
function access(node, found = { updates: [], selfCommitting: false }) {
  if (UPDATING.has(node.name)) found.updates.push(node.name);
  if (node.name === 'procedureName' && (procedures[VERSION][textOf(node)]?.mode ?? 'READ') !== 'READ') {
    found.updates.push(`CALL ${textOf(node)}`);
  }
  if (node.name === 'subqueryInTransactionsParameters') found.selfCommitting = true;
  for (const child of node.children ?? []) access(child, found);
  return found;
}

function modeFindings(text, mode) {
  const { updates, selfCommitting } = access(getDebugTree(text));
  const messages = [];
  if (mode === 'read' && updates.length) {
    messages.push(`the header declares Mode: read but Neo4j's parser finds ${updates[0]}, a write: declare Mode: write`);
  }
  if (mode === 'write' && !updates.length) {
    messages.push("the header declares Mode: write but Neo4j's parser finds no update: declare Mode: read " +
                  '(a read may run on any member of a cluster)');
  }
  if (selfCommitting) {
    messages.push('CALL { } IN TRANSACTIONS commits by itself, so it runs only in an auto-commit transaction; ' +
                  'the store runs every statement in a managed one: batch from Python instead (as prefilter/mark does)');
  }
  return messages;
}

const job = JSON.parse(readFileSync(0, 'utf8'));
const found = [];
for (const { name, index, text, parameters, mode } of job.statements) {
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
  for (const message of modeFindings(text, mode)) {
    found.push({ name, index, severity: 'error', line: 1, column: 1, message });
  }
}
process.stdout.write(JSON.stringify(found));
