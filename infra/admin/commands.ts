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
  'mails failed',
  'mails resend',
  'mails backfill',
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

/** The usage text: printed for an unknown command, a bad option or a missing one (exit 2). */
export const usage = `Usage:
  npm run -s admin -- bootstrap --org-name NAME --org-slug SLUG --library-name NAME --library-slug SLUG --email EMAIL [--plan PLAN]
  npm run -s admin -- member add --org-slug SLUG --email EMAIL --role ROLE [--api-key-library SLUG] [--name NAME]
  npm run -s admin -- plan set --org-slug SLUG --plan free|team|enterprise
  npm run -s admin -- grant create --email EMAIL [--expires-days 30]
  npm run -s admin -- domain verify --org-slug SLUG --domain DOMAIN
  npm run -s admin -- cleanup-writes --org-slug SLUG --library-slug SLUG [--older-than-minutes 15]
  npm run -s admin -- reindex-search --org-slug SLUG --library-slug SLUG
  npm run -s admin -- tenants list
  npm run -s admin -- backup --out FILE.jsonl
  npm run -s admin -- restore --in FILE.jsonl [--table NAME]   (into an empty or new table)
  npm run -s admin -- export --org-slug SLUG --library-slug SLUG --out DIR   (uploaded files: FILES_BUCKET or FILES_DIR)
  npm run -s admin -- import --org-slug SLUG --library-slug SLUG --in DIR [--format json|csv] [--email EMAIL] [--legacy]   (--legacy: CSV only; sourcing.csv is a legacy cost sheet, every part and quote isLegacyImport)
  npm run -s admin -- import-abort --org-slug SLUG --library-slug SLUG [--force]
  npm run -s admin -- saml-resync [--scan]   (deployed: COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID from the stack outputs)
  npm run -s admin -- audit verify --org-slug SLUG [--from ISO] [--to ISO]   (exit 1 naming the first altered, removed or reordered entry)
  npm run -s admin -- audit export --org-slug SLUG --out FILE [--format jsonl|csv] [--from ISO] [--to ISO]
  npm run -s admin -- audit seal|digest --org-slug SLUG   (link pending entries now; keep today's head as a digest)
  npm run -s admin -- audit retention --org-slug SLUG --days N
  npm run -s admin -- digests   (mails the notification digests now, as the daily schedule does; without MAIL_FROM it prints them)
  npm run -s admin -- mails failed   (change order mails not sent after their last attempt, newest first)
  npm run -s admin -- mails resend [--change-order-id ID]   (due again now: the next sweep sends what did not go)
  npm run -s admin -- mails backfill [--org-slug SLUG] [--dry-run]   (unsent mails an older build wrote without due keys: into the due index, the sweep sends them; the whole table, or one organization's libraries)`;
