// The RetryPolicy configs written out in the docs' ts blocks load without Seawall's own warnings (or errors).
import ts from 'typescript';
import { validateRetryConfig } from '../../src/policy/retry/retry-config.js';
import { type DocModule, originOf } from './check-ts.js';

/** The value of an expression made only of literals (objects, arrays, strings, numbers, booleans); undefined otherwise. */
function literal(node: ts.Expression): { value: unknown } | undefined {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return literal(node.expression);
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { value: node.text };
  if (ts.isNumericLiteral(node)) return { value: Number(node.text.replaceAll('_', '')) };
  if (node.kind === ts.SyntaxKind.TrueKeyword) return { value: true };
  if (node.kind === ts.SyntaxKind.FalseKeyword) return { value: false };
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  ) {
    return { value: -Number(node.operand.text) };
  }
  if (ts.isArrayLiteralExpression(node)) {
    const items: unknown[] = [];
    for (const element of node.elements) {
      const item = literal(element);
      if (item === undefined) return undefined;
      items.push(item.value);
    }
    return { value: items };
  }
  if (ts.isObjectLiteralExpression(node)) {
    const object: Record<string, unknown> = {};
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property)) return undefined;
      const name = property.name;
      if (!ts.isIdentifier(name) && !ts.isStringLiteral(name)) return undefined;
      const value = literal(property.initializer);
      if (value === undefined) return undefined;
      object[name.text] = value.value;
    }
    return { value: object };
  }
  return undefined;
}

/**
 * Every `new RetryPolicy({...})` and `policy: {...}` written as literals in a module is validated as the library
 * validates it; an error or a warning (perTryTimeout × maxAttempts over the patience, maxAttempts above 5, ...) is a
 * problem: the docs recommend settings that load cleanly. Returns the problems and how many configs were checked.
 */
export function policyProblems(modules: readonly DocModule[]): { checked: number; problems: string[] } {
  const problems: string[] = [];
  let checked = 0;
  for (const module of modules) {
    const source = ts.createSourceFile('m.ts', module.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      let config: ts.Expression | undefined;
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'RetryPolicy') config = node.arguments?.[0];
      if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'policy') config = node.initializer;
      const value = config === undefined || !ts.isObjectLiteralExpression(config) ? undefined : literal(config);
      if (config !== undefined && value !== undefined) {
        checked++;
        const at = originOf(module, source.getLineAndCharacterOfPosition(config.getStart(source)).line);
        const result = validateRetryConfig(value.value, '');
        // @ko docs-policy-warnings
        for (const issue of [...result.issues, ...result.warnings]) {
          problems.push(`${at}: RetryPolicy ${issue.path || 'config'}: ${issue.message}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { checked, problems };
}
