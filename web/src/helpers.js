// Helpers for forms built on the validators' results.

/**
 * Groups field errors by their `field` path, keeping the server's order within each field.
 * @param {{field: string, code: string, message: string}[]} errors
 * @returns {Map<string, {field: string, code: string, message: string}[]>}
 */
export function errorsByField(errors) {
  const byField = new Map();
  for (const error of errors) {
    const list = byField.get(error.field);
    if (list) list.push(error);
    else byField.set(error.field, [error]);
  }
  return byField;
}
