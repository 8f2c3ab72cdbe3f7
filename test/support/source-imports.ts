/**
 * Reading TypeScript import declarations as the compiler emits them, for the tests that hold src/ to
 * rules about what loads at run time (test/unit/house/package-imports.test.ts, test/unit/house/command-load.test.ts).
 */

/**
 * Whether an import or export clause (what stands between `import`/`export` and `from`) loads its module
 * at run time. `import type {...}` never does; `import { type A, type B }` is erased by the compiler too, and so is an empty `{}`.
 */
export function clauseLoadsModule(clause: string): boolean {
  if (/^type\b/.test(clause.trim())) return false;
  const braces = /\{([^}]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[^}]*\}/, "")
    .replace(/,/g, "")
    .trim();
  const names = braces
    ? braces[1]!
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean)
    : [];
  return outside !== "" || names.some((n) => !n.startsWith("type "));
}
