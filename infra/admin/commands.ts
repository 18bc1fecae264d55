/**
 * The operator CLI's commands (infra/admin/cli.ts dispatches on exactly these names). Every one runs as an
 * audited operation whose entry is `admin.<name, spaces as dots>` with the operator as actor
 * (lib/store/README.md, "Audit log"); test/e2e/operatorAudit.test.ts runs each and fails for one that
 * writes no entry.
 */
export const operatorCommandNames = [
  'bootstrap',
  'member add',
  'plan set',
  'grant create',
  'domain verify',
  'cleanup-writes',
  'reindex-search',
  'tenants list',
  'backup',
  'restore',
  'export',
  'import',
  'import-abort',
  'saml-resync',
  'audit verify',
  'audit export',
  'audit seal',
  'audit digest',
  'audit retention',
  'digests',
] as const;

export type OperatorCommandName = (typeof operatorCommandNames)[number];

/** The audit entry's operation of a command: `member add` -> `admin.member.add`. */
export const auditOperationOf = (name: OperatorCommandName) => `admin.${name.replace(/ /g, '.')}`;

/** The command named by the arguments (a two-word command first), and the arguments after its name. */
export function commandOf(argv: readonly string[]): { name: OperatorCommandName; args: string[] } | undefined {
  const two = `${argv[0] ?? ''} ${argv[1] ?? ''}`;
  const names: readonly string[] = operatorCommandNames;
  if (names.includes(two)) return { name: two as OperatorCommandName, args: argv.slice(2) };
  if (argv[0] && names.includes(argv[0])) return { name: argv[0] as OperatorCommandName, args: argv.slice(1) };
  return undefined;
}
