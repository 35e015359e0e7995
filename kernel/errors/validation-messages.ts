import type { z } from 'zod';
import { escapeUnsafe } from '../shared/escape-unsafe.js';

/**
 * One wording of validation failures for every surface: `<field> is required`,
 * `<field> must be <type>`, `<name> is not a known field`, else `<field>: <zod message>`.
 * REST returns these in the validation envelope; MCP prefixes `INVALID_PARAMS: `.
 * Parse with `{ reportInput: true }` so a missing field can be told from a wrong one
 * (the input is read here only, never echoed).
 */
export function validationMessages(error: z.core.$ZodError): string[] {
  return issueMessages(error.issues);
}

/** The same wording for some of a parse's issues (a surface that reports one field in its own words). */
export function issueMessages(issues: readonly z.core.$ZodIssue[]): string[] {
  // Field names are the caller's (unknown keys, record keys): quoted back with control and bidi characters escaped.
  return issues.flatMap(describeIssue).map((line) => escapeUnsafe(line));
}

/**
 * A refinement whose message already names its field (the same words a service check
 * uses) passes `params: { [WHOLE_MESSAGE]: true }`, and its message is shown as it is.
 */
export const WHOLE_MESSAGE = 'wholeMessage';

/** A refinement may say the next step too, as `params: { [HINT]: '…' }` (`AppError.hint`). */
export const HINT = 'hint';

/** The hints of the failed refinements, one text (undefined when none gave one). */
export function validationHint(error: z.core.$ZodError): string | undefined {
  const hints = new Set(
    error.issues.flatMap((issue) => (issue.code === 'custom' && typeof issue.params?.[HINT] === 'string' ? [issue.params[HINT]] : [])),
  );
  return hints.size === 0 ? undefined : [...hints].join(' ');
}

function describeIssue(issue: z.core.$ZodIssue): string | string[] {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type') {
    const name = field || 'body';
    return issue.input === undefined ? `${name} is required` : `${name} must be ${issue.expected}`;
  }
  // A field limited to fixed values (z.enum, z.literal) reports its absence as invalid_value,
  // one of several shapes (a string or a number) as invalid_union.
  if ((issue.code === 'invalid_value' || issue.code === 'invalid_union') && issue.input === undefined)
    return `${field || 'body'} is required`;
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${key} is not a known field`);
  if (issue.code === 'custom' && issue.params?.[WHOLE_MESSAGE] === true) return issue.message;
  return field ? `${field}: ${issue.message}` : issue.message;
}
