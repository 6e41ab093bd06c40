// Public names (#19): submissions, the operator's decisions, the names shown, admins and stored
// icons (sql/postgres/0012_public_names.sql). A decision changes the submission and the shown name
// in one transaction with its record, whose before/after snapshots make it reversible.
import type { PgStore, PgTx } from './store.js';

export type SubmissionStatus = 'pending' | 'approved' | 'rejected';
export type DecisionAction = 'approve' | 'reject' | 'edit' | 'revert';

/** What a submission says (and what an edit may change). */
export interface NameFields {
  name: string;
  tags: string[];
  website: string | null;
  description: string | null;
  icon: string | null;
  links: Record<string, string>;
}

export interface SubmissionRow extends NameFields {
  id: string;
  user_id: string | null;
  address: string;
  kind: 'address' | 'token';
  signature: string | null;
  signed_message: string | null;
  signer: string | null;
  status: SubmissionStatus;
  created_at: Date;
  updated_at: Date;
}

/** A name the public API shows (active) or showed (removed: active false). */
export interface PublicNameRow extends NameFields {
  address: string;
  version: string;
  active: boolean;
  submission_id: string | null;
  kind: 'address' | 'token';
}

export interface DecisionRow {
  id: string;
  submission_id: string;
  action: DecisionAction;
  actor: string;
  at: Date;
  note: string | null;
  before: Snapshot;
  after: Snapshot;
  reverts: string | null;
  reverted_by: string | null;
}

/** The state a decision changes: the submission's fields and status, and the address's shown name. */
export interface Snapshot {
  submission: NameFields & { status: SubmissionStatus };
  shown: (NameFields & { submission_id: string | null; kind: 'address' | 'token' }) | null;
}

type Db = Pick<PgStore, 'query'> | PgTx;

async function q<T>(db: Db, sql: string, params: unknown[]): Promise<T[]> {
  const r = await (db as PgStore).query(sql, params);
  // A pg client returns a result object, the store the rows.
  return (Array.isArray(r) ? r : (r as unknown as { rows: T[] }).rows) as T[];
}

const SUBMISSION_COLS = `id::text AS id, user_id::text AS user_id, address, kind, name, tags, website, description, icon, links,
  signature, signed_message, signer, status, created_at, updated_at`;
const NAME_COLS = `address, version::text AS version, active, submission_id::text AS submission_id, kind, name, tags, website, description, icon, links`;
const DECISION_COLS = `id::text AS id, submission_id::text AS submission_id, action, actor, at, note, before, after, reverts::text AS reverts, reverted_by::text AS reverted_by`;

// ---- admins ---------------------------------------------------------------------------------

export async function isAdmin(pg: PgStore, userId: string): Promise<boolean> {
  return (await pg.query('SELECT 1 FROM account_admins WHERE user_id = $1', [userId])).length > 0;
}

/** Makes an account an admin; false when no such account exists. */
export async function grantAdmin(pg: PgStore, userId: string, by: string, at: Date): Promise<boolean> {
  const users = await pg.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  if (!users.length) return false;
  await pg.query('INSERT INTO account_admins (user_id, granted_at, granted_by) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING', [userId, at, by]);
  return true;
}

export async function revokeAdmin(pg: PgStore, userId: string): Promise<boolean> {
  return (await pg.query('DELETE FROM account_admins WHERE user_id = $1 RETURNING user_id', [userId])).length > 0;
}

/** The account id of an e-mail address or (lower-case) wallet address, or null. */
export async function findUserId(pg: PgStore, emailOrAddress: string): Promise<string | null> {
  const rows = await pg.query<{ id: string }>('SELECT id::text AS id FROM users WHERE email = $1 OR address = $1 OR id::text = $1 LIMIT 1', [emailOrAddress]);
  return rows[0]?.id ?? null;
}

// ---- addresses a submission may name ---------------------------------------------------------

/**
 * Whether the address is one this instance stores (an address seen on chain, a contract, a token),
 * whether it is a token, and its deployer when it is a contract.
 */
export async function addressStanding(pg: PgStore, address: string): Promise<{ known: boolean; token: boolean; creator: string | null }> {
  const rows = await pg.query<{ seen: boolean; token: boolean; creator: string | null }>(
    `SELECT EXISTS (SELECT 1 FROM addresses WHERE hash = $1) AS seen,
            EXISTS (SELECT 1 FROM tokens WHERE address = $1) AS token,
            (SELECT creator FROM contracts WHERE address = $1) AS creator`,
    [address],
  );
  const r = rows[0]!;
  return { known: r.seen || r.token || r.creator !== null, token: r.token, creator: r.creator };
}

// ---- icons ------------------------------------------------------------------------------------

export async function putIcon(pg: PgStore, i: { sha256: string; ext: string; contentType: string; width: number; height: number; bytes: Buffer }): Promise<void> {
  await pg.query(
    `INSERT INTO public_icons (sha256, ext, content_type, width, height, bytes) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING`,
    [i.sha256, i.ext, i.contentType, i.width, i.height, i.bytes],
  );
}

export async function getIcon(pg: PgStore, sha256: string, ext: string): Promise<{ content_type: string; bytes: Buffer } | null> {
  const rows = await pg.query<{ content_type: string; bytes: Buffer }>('SELECT content_type, bytes FROM public_icons WHERE sha256 = $1 AND ext = $2', [sha256, ext]);
  return rows[0] ?? null;
}

export async function iconExists(pg: PgStore, id: string): Promise<boolean> {
  const [sha, ext] = id.split('.');
  return (await pg.query('SELECT 1 FROM public_icons WHERE sha256 = $1 AND ext = $2', [sha, ext])).length > 0;
}

// ---- submissions ------------------------------------------------------------------------------

export async function insertSubmission(
  pg: PgStore,
  s: NameFields & { userId: string; address: string; kind: 'address' | 'token'; signature: string | null; signedMessage: string | null; signer: string | null; at: Date },
): Promise<SubmissionRow> {
  const rows = await pg.query<SubmissionRow>(
    `INSERT INTO public_name_submissions (user_id, address, kind, name, tags, website, description, icon, links, signature, signed_message, signer, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $13) RETURNING ${SUBMISSION_COLS}`,
    [s.userId, s.address, s.kind, s.name, s.tags, s.website, s.description, s.icon, JSON.stringify(s.links), s.signature, s.signedMessage, s.signer, s.at],
  );
  return rows[0]!;
}

export async function getSubmission(db: Db, id: string, lock = false): Promise<SubmissionRow | null> {
  const rows = await q<SubmissionRow>(db, `SELECT ${SUBMISSION_COLS} FROM public_name_submissions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** An account's own submissions, newest first. */
export async function listOwnSubmissions(pg: PgStore, userId: string, limit: number): Promise<SubmissionRow[]> {
  return pg.query<SubmissionRow>(`SELECT ${SUBMISSION_COLS} FROM public_name_submissions WHERE user_id = $1 ORDER BY id DESC LIMIT $2`, [userId, limit]);
}

/** Submissions for review (by status, or all), oldest first. */
export async function listSubmissions(pg: PgStore, status: SubmissionStatus | null, limit: number): Promise<SubmissionRow[]> {
  return pg.query<SubmissionRow>(
    `SELECT ${SUBMISSION_COLS} FROM public_name_submissions WHERE ($1::text IS NULL OR status = $1) ORDER BY id LIMIT $2`,
    [status, limit],
  );
}

export async function listDecisions(pg: PgStore, submissionId: string | null, limit: number): Promise<DecisionRow[]> {
  return pg.query<DecisionRow>(
    `SELECT ${DECISION_COLS} FROM public_name_decisions WHERE ($1::bigint IS NULL OR submission_id = $1) ORDER BY id DESC LIMIT $2`,
    [submissionId, limit],
  );
}

// ---- shown names ------------------------------------------------------------------------------

/** Shown names (and removals) changed after `version`, in version order. */
export async function publicNamesSince(pg: PgStore, version: string, limit = 10_000): Promise<PublicNameRow[]> {
  return pg.query<PublicNameRow>(`SELECT ${NAME_COLS} FROM public_names WHERE version > $1 ORDER BY version LIMIT $2`, [version, limit]);
}

async function shownName(db: Db, address: string): Promise<Snapshot['shown']> {
  const rows = await q<PublicNameRow>(db, `SELECT ${NAME_COLS} FROM public_names WHERE address = $1 FOR UPDATE`, [address]);
  const r = rows[0];
  if (!r || !r.active) return null;
  return { name: r.name, tags: r.tags, website: r.website, description: r.description, icon: r.icon, links: r.links, submission_id: r.submission_id, kind: r.kind };
}

async function setShown(db: Db, address: string, shown: Snapshot['shown'], at: Date): Promise<void> {
  if (!shown) {
    await q(db, `UPDATE public_names SET active = false, version = nextval('public_names_version_seq'), updated_at = $2 WHERE address = $1 AND active`, [address, at]);
    return;
  }
  await q(
    db,
    `INSERT INTO public_names (address, version, active, submission_id, kind, name, tags, website, description, icon, links, updated_at)
     VALUES ($1, nextval('public_names_version_seq'), true, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (address) DO UPDATE SET version = EXCLUDED.version, active = true, submission_id = EXCLUDED.submission_id, kind = EXCLUDED.kind,
       name = EXCLUDED.name, tags = EXCLUDED.tags, website = EXCLUDED.website, description = EXCLUDED.description, icon = EXCLUDED.icon,
       links = EXCLUDED.links, updated_at = EXCLUDED.updated_at`,
    [address, shown.submission_id, shown.kind, shown.name, shown.tags, shown.website, shown.description, shown.icon, JSON.stringify(shown.links), at],
  );
}

function fieldsOf(s: NameFields): NameFields {
  return { name: s.name, tags: s.tags, website: s.website, description: s.description, icon: s.icon, links: s.links };
}

/** Why a decision cannot be taken (the caller turns it into a 404 or 409). */
export class DecisionRefused extends Error {
  constructor(
    readonly kind: 'not-found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Takes one decision in one transaction and records it: approve (the submission is shown, in
 * place of any other name of its address), reject (it is not; if it was shown, the address shows
 * none), edit (its fields change, and the shown name too when it is the one shown). Returns the
 * decision and the address whose shown name may have changed.
 */
export async function decide(
  pg: PgStore,
  d: { submissionId: string; action: 'approve' | 'reject' | 'edit'; actor: string; note: string | null; edit?: Partial<NameFields>; at: Date },
): Promise<{ decision: DecisionRow; address: string }> {
  return pg.tx(async (c) => {
    const s = await getSubmission(c, d.submissionId, true);
    if (!s) throw new DecisionRefused('not-found', 'Submission not found');
    const shown = await shownName(c, s.address);
    const before: Snapshot = { submission: { ...fieldsOf(s), status: s.status }, shown };
    const fields = { ...fieldsOf(s), ...(d.action === 'edit' ? d.edit : {}) };
    const isShown = shown?.submission_id === s.id;
    let status = s.status;
    let nextShown = shown;
    if (d.action === 'approve') {
      status = 'approved';
      nextShown = { ...fields, submission_id: s.id, kind: s.kind };
    } else if (d.action === 'reject') {
      status = 'rejected';
      if (isShown) nextShown = null;
    } else if (isShown) nextShown = { ...fields, submission_id: s.id, kind: s.kind };
    const after: Snapshot = { submission: { ...fields, status }, shown: nextShown };
    await applySnapshot(c, s.id, s.address, after, d.at);
    const decision = await recordDecision(c, { submissionId: s.id, action: d.action, actor: d.actor, at: d.at, note: d.note, before, after, reverts: null });
    return { decision, address: s.address };
  });
}

/**
 * Reverts a decision: the submission and the shown name go back to what they were before it,
 * recorded as a decision of its own. Only the latest standing decision of a submission, and only
 * while the address still shows what that decision left (else a later decision is reverted first).
 */
export async function revertDecision(pg: PgStore, r: { decisionId: string; actor: string; note: string | null; at: Date }): Promise<{ decision: DecisionRow; address: string }> {
  return pg.tx(async (c) => {
    const rows = await q<DecisionRow>(c, `SELECT ${DECISION_COLS} FROM public_name_decisions WHERE id = $1 FOR UPDATE`, [r.decisionId]);
    const d = rows[0];
    if (!d) throw new DecisionRefused('not-found', 'Decision not found');
    if (d.reverted_by) throw new DecisionRefused('conflict', `decision ${d.id} was already reverted by decision ${d.reverted_by}`);
    const s = (await getSubmission(c, d.submission_id, true))!;
    const later = await q<{ id: string }>(
      c,
      `SELECT id::text AS id FROM public_name_decisions WHERE submission_id = $1 AND id > $2 AND reverted_by IS NULL AND reverts IS NULL ORDER BY id DESC LIMIT 1`,
      [d.submission_id, d.id],
    );
    if (later[0]) throw new DecisionRefused('conflict', `decision ${later[0].id} on the same submission came later: revert it first`);
    const shown = await shownName(c, s.address);
    if (JSON.stringify(canon(shown)) !== JSON.stringify(canon(d.after.shown))) {
      throw new DecisionRefused('conflict', `the name shown for ${s.address} changed after decision ${d.id} (another submission's decision): revert that first`);
    }
    const before: Snapshot = { submission: { ...fieldsOf(s), status: s.status }, shown };
    await applySnapshot(c, s.id, s.address, d.before, r.at);
    const decision = await recordDecision(c, { submissionId: s.id, action: 'revert', actor: r.actor, at: r.at, note: r.note, before, after: d.before, reverts: d.id });
    await q(c, 'UPDATE public_name_decisions SET reverted_by = $2 WHERE id = $1', [d.id, decision.id]);
    return { decision, address: s.address };
  });
}

/** Snapshots compare by their fields in a fixed order (jsonb reorders keys). */
function canon(s: Snapshot['shown']): unknown {
  if (!s) return null;
  return [s.submission_id, s.kind, s.name, s.tags, s.website, s.description, s.icon, Object.entries(s.links ?? {}).sort()];
}

async function applySnapshot(c: PgTx, submissionId: string, address: string, s: Snapshot, at: Date): Promise<void> {
  const f = s.submission;
  await q(
    c,
    `UPDATE public_name_submissions SET name = $2, tags = $3, website = $4, description = $5, icon = $6, links = $7, status = $8, updated_at = $9 WHERE id = $1`,
    [submissionId, f.name, f.tags, f.website, f.description, f.icon, JSON.stringify(f.links), f.status, at],
  );
  await setShown(c, address, s.shown, at);
}

async function recordDecision(
  c: PgTx,
  d: { submissionId: string; action: DecisionAction; actor: string; at: Date; note: string | null; before: Snapshot; after: Snapshot; reverts: string | null },
): Promise<DecisionRow> {
  const rows = await q<DecisionRow>(
    c,
    `INSERT INTO public_name_decisions (submission_id, action, actor, at, note, before, after, reverts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${DECISION_COLS}`,
    [d.submissionId, d.action, d.actor, d.at, d.note, JSON.stringify(d.before), JSON.stringify(d.after), d.reverts],
  );
  return rows[0]!;
}
