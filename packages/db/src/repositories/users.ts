/**
 * The users table: accounts, their profile, their ways in (password, email, verified phone, TOTP).
 * Each write is one guarded statement named for what it does; what a change means (who may make it,
 * what it ends) is the caller's.
 */
import type { Prisma, User } from "../generated/prisma/client.js";
import { plainFor } from "../plain-access.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { sessionRead } from "./session-match.js";

export type { User } from "../generated/prisma/client.js";

// ---- The profile -------------------------------------------------------------------------------

/**
 * The user's profile, its columns listed here and nowhere else: GET /me reads them (with the
 * session, in one statement), PUT /me writes them and reads them back, the data export shows them.
 * Each is named as the API shows it, which is also its column's name; the value is its Prisma field.
 * A new profile field is a line here, the field in prisma/schema.prisma, its migration, and the
 * profile's API schema (packages/domain/src/profile/schemas.ts).
 */
const profileFields = {
  id: "id",
  name: "name",
  email: "email",
  phone: "phone",
  phone_verified: "phoneVerified",
  avatar_url: "avatarUrl",
  email_verified: "emailVerified",
  otp_enabled: "otpEnabled",
  role: "role",
  preferences: "preferences",
} as const satisfies Record<string, keyof User>;

type ProfileColumn = keyof typeof profileFields;
type FieldOf<C extends ProfileColumn> = (typeof profileFields)[C];
type ProfileField = FieldOf<ProfileColumn>;

/** The profile as the API shows it; `preferences` is the JSON object the column always holds. */
export type Profile = { [C in ProfileColumn]: C extends "preferences" ? Record<string, unknown> : User[FieldOf<C>] };

/** Profile columns to write; those absent or undefined are left as they are. */
export type ProfileChanges = { [C in Exclude<ProfileColumn, "id">]?: Profile[C] | undefined };

const profileColumns = Object.keys(profileFields) as ProfileColumn[];
const profileSelect = Object.fromEntries(profileColumns.map((column) => [profileFields[column], true])) as {
  [F in ProfileField]: true;
};

/** The profile of a user row read by Prisma (all its columns, or at least the profile's). */
export function profileOf(row: Pick<User, ProfileField>): Profile {
  const profile = Object.fromEntries(profileColumns.map((column) => [column, row[profileFields[column]]])) as Profile;
  profile.preferences ??= {};
  return profile;
}

/** An outside account linked to the user, as GET /me lists it (`linked_at` as the database wrote it in JSON). */
export interface LinkedIdentity {
  provider: string;
  email: string | null;
  linked_at: string;
}

/** The profile, the user's linked identities, and when the session was last noted in use. */
export type ProfileInSession = Profile & { session_last_used_at: Date | null; identities: LinkedIdentity[] };

/**
 * GET /me's one read: the profile of the access token's user, provided its session meets
 * `condition`. Plain SQL on the shared pool: Prisma's relation filter costs 2–4× the database time.
 */
export const findProfileInSession = sessionRead<ProfileInSession>(
  (session) => `SELECT ${profileColumns.map((column) => `u.${column}`).join(", ")},
            s.last_used_at AS session_last_used_at,
            (SELECT COALESCE(json_agg(json_build_object('provider', i.provider, 'email', i.email, 'linked_at', i.linked_at)
                                      ORDER BY i.linked_at), '[]'::json)
               FROM user_identities i WHERE i.user_id = u.id) AS identities
       FROM users u JOIN sessions s ON ${session}
      WHERE u.id = $1 AND u.tenant_id = $2`,
);

export async function findProfile(db: AnyClient, userId: string): Promise<Profile | undefined> {
  const row = await prismaOf(db).user.findFirst({ where: { id: userId }, select: profileSelect });
  return row ? profileOf(row) : undefined;
}

/**
 * Writes the profile columns given, provided the row's phone_verified is still `whilePhoneVerified`
 * (when given): whether the row was written.
 */
export async function updateProfile(
  db: AnyClient,
  userId: string,
  changes: ProfileChanges,
  { whilePhoneVerified }: { whilePhoneVerified?: boolean } = {},
): Promise<boolean> {
  const data: Record<string, unknown> = {};
  for (const column of profileColumns) {
    const value = column === "id" ? undefined : changes[column];
    if (value !== undefined) data[profileFields[column]] = value;
  }
  const written = await prismaOf(db).user.updateMany({
    where: { id: userId, ...(whilePhoneVerified !== undefined ? { phoneVerified: whilePhoneVerified } : {}) },
    data: data as Prisma.UserUpdateManyMutationInput,
  });
  return written.count === 1;
}

/** The user's phone, and whether it is verified. */
export async function findPhone(db: AnyClient, userId: string): Promise<Pick<User, "phone" | "phoneVerified"> | null> {
  return prismaOf(db).user.findFirst({ where: { id: userId }, select: { phone: true, phoneVerified: true } });
}

/** The user's stored preferences (undefined: no such user). */
export async function findPreferences(db: AnyClient, userId: string): Promise<Prisma.JsonValue | undefined> {
  const row = await prismaOf(db).user.findFirst({ where: { id: userId }, select: { preferences: true } });
  return row?.preferences;
}

// ---- Accounts ----------------------------------------------------------------------------------

/** An account to create. */
export interface NewUser {
  tenantId: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  phoneVerified?: boolean;
  /** An email a provider has verified (Sign in with Google). */
  emailVerified?: boolean;
  passwordHash: string | null;
  preferences?: Record<string, unknown>;
}

/** Creates the account; a taken email or verified phone is a unique violation (isUniqueViolation). */
export async function create(tx: AnyClient, user: NewUser): Promise<User> {
  const { preferences, ...columns } = user;
  const data = { ...columns, ...(preferences ? { preferences: preferences as Prisma.InputJsonObject } : {}) };
  return prismaOf(tx).user.create({ data });
}

/** Whether the client sees a user with this id (a tenant's client: whether the user is the tenant's customer). */
export async function exists(db: AnyClient, userId: string): Promise<boolean> {
  return (await prismaOf(db).user.count({ where: { id: userId } })) > 0;
}

export async function findById(db: AnyClient, userId: string): Promise<User | null> {
  return prismaOf(db).user.findFirst({ where: { id: userId } });
}

/** The account with this email in the tenant. */
export async function findByEmail(db: AnyClient, tenantId: string, email: string): Promise<User | null> {
  return prismaOf(db).user.findUnique({ where: { tenantId_email: { tenantId, email } } });
}

/** The account whose verified phone this is. */
export async function findByVerifiedPhone(db: AnyClient, phone: string): Promise<User | null> {
  return prismaOf(db).user.findFirst({ where: { phone, phoneVerified: true } });
}

/** Another account than `userId` with this email, if any. */
export async function findOtherWithEmail(db: AnyClient, email: string, userId: string): Promise<{ id: string } | null> {
  return prismaOf(db).user.findFirst({ where: { email, id: { not: userId } }, select: { id: true } });
}

/** Another account than `userId` whose verified phone this is, if any. */
export async function findOtherWithVerifiedPhone(db: AnyClient, phone: string, userId: string) {
  const where = { phone, phoneVerified: true, id: { not: userId } };
  return prismaOf(db).user.findFirst({ where, select: { id: true } });
}

/** A user as a password sign-in reads it. */
export interface SignInUser {
  id: string;
  tenantId: string;
  name: string | null;
  email: string | null;
  role: string | null;
  passwordHash: string | null;
  otpEnabled: boolean;
  emailVerified: boolean;
}

/**
 * The user a password sign-in is for, found by tenant and email. Every login reads it before the
 * password hash is checked, so it runs as plain SQL on the shared pool: Prisma's findUnique on the
 * compound key costs several times the database round trip in CPU (docs/performance.md, "Sign-in").
 */
export async function findForSignIn(db: TenantDb, tenantId: string, email: string): Promise<SignInUser | undefined> {
  const rows = await plainFor(db, tenantId).sql.query(
    `SELECT id, tenant_id, name, email, role, password_hash, otp_enabled, email_verified FROM users ` +
      `WHERE tenant_id = $1 AND email = $2`,
    [tenantId, email],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    name: row.name as string | null,
    email: row.email as string | null,
    role: row.role as string | null,
    passwordHash: row.password_hash as string | null,
    otpEnabled: row.otp_enabled as boolean,
    emailVerified: row.email_verified as boolean,
  };
}

/** What a refresh checks of the session's user. */
export async function findForRefresh(db: AnyClient, userId: string) {
  const select = { id: true, role: true, email: true, emailVerified: true } as const;
  return prismaOf(db).user.findUnique({ where: { id: userId }, select });
}

/** The user's role, the row locked until the transaction ends; undefined when the tenant has no such user. */
export async function lockRoleOf(tx: AnyClient, tenantId: string, userId: string) {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  const [current] = await prismaOf(tx).$queryRaw<Pick<User, "role">[]>`
    SELECT role FROM users WHERE id = ${userId}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return current;
}

/** The user's ways in that a removal must leave one of, the row locked until the transaction ends. */
export async function lockForSignInMethods(tx: AnyClient, tenantId: string, userId: string) {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  const [user] = await prismaOf(tx).$queryRaw<{ password_hash: string | null; phone_verified: boolean }[]>`
    SELECT password_hash, phone_verified FROM users WHERE id = ${userId}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return user ? { passwordHash: user.password_hash, phoneVerified: user.phone_verified } : undefined;
}

/** Sets the user's role (the admin API's PATCH /api/v1/admin/users/:id). */
export function setRole(tx: AnyClient, userId: string, role: string | null) {
  const select = { id: true, email: true, role: true } as const;
  return prismaOf(tx).user.update({ where: { id: userId }, data: { role }, select });
}

// ---- Ways in -----------------------------------------------------------------------------------

/** Sets the password hash, changed at `changedAt`; `emailVerified` too when given. */
export async function setPassword(
  tx: AnyClient,
  userId: string,
  { passwordHash, changedAt, emailVerified }: { passwordHash: string; changedAt: Date; emailVerified?: boolean },
): Promise<void> {
  await prismaOf(tx).user.updateMany({
    where: { id: userId },
    data: { passwordHash, passwordChangedAt: changedAt, ...(emailVerified !== undefined ? { emailVerified } : {}) },
  });
}

export async function markEmailVerified(tx: AnyClient, userId: string): Promise<void> {
  await prismaOf(tx).user.updateMany({ where: { id: userId }, data: { emailVerified: true } });
}

/** Replaces the email; a taken one is a unique violation (isUniqueViolation). */
export async function setEmail(
  tx: AnyClient,
  userId: string,
  email: { email: string; verified: boolean; resetsPassword: boolean },
): Promise<void> {
  await prismaOf(tx).user.update({
    where: { id: userId },
    data: { email: email.email, emailVerified: email.verified, emailResetsPassword: email.resetsPassword },
  });
}

/**
 * Takes an unverified email away from the account (a Google account verified it for someone else,
 * docs/sign-in.md#sign-in-with-google); whether it did. A verified one is left alone.
 */
export async function removeUnverifiedEmail(tx: AnyClient, userId: string, email: string): Promise<boolean> {
  const removed = await prismaOf(tx).user.updateMany({ where: { id: userId, email, emailVerified: false }, data: { email: null } });
  return removed.count === 1;
}

/** Makes `phone` the user's verified phone; one verified by another account is a unique violation. */
export async function setVerifiedPhone(tx: AnyClient, userId: string, phone: string): Promise<void> {
  await prismaOf(tx).user.update({ where: { id: userId }, data: { phone, phoneVerified: true } });
}

/** Stores a TOTP secret awaiting confirmation, unless two-factor is on; whether it did. */
export async function storePendingTotpSecret(db: AnyClient, userId: string, secretEnc: string): Promise<boolean> {
  const stored = await prismaOf(db).user.updateMany({
    where: { id: userId, otpEnabled: false },
    data: { otpPendingSecretEnc: secretEnc },
  });
  return stored.count === 1;
}

/** A TOTP step not yet accepted: none was, or only earlier ones. */
const stepNotYetAccepted = (step: number) => ({ OR: [{ otpLastStep: null }, { otpLastStep: { lt: step } }] });

/**
 * Turns two-factor on with the pending secret, provided it is still `pendingSecretEnc`, two-factor is
 * still off and `step` is later than any accepted (it is claimed); whether it did.
 */
export async function enableTotp(
  tx: AnyClient,
  userId: string,
  { pendingSecretEnc, step }: { pendingSecretEnc: string; step: number },
): Promise<boolean> {
  const enabled = await prismaOf(tx).user.updateMany({
    where: { id: userId, otpEnabled: false, otpPendingSecretEnc: pendingSecretEnc, ...stepNotYetAccepted(step) },
    data: { otpEnabled: true, otpSecretEnc: pendingSecretEnc, otpPendingSecretEnc: null, otpLastStep: BigInt(step) },
  });
  return enabled.count === 1;
}

/** Claims a TOTP step (compare-and-set): accepted once per user, while two-factor is on; whether this call did. */
export async function claimTotpStep(db: AnyClient, userId: string, step: number): Promise<boolean> {
  const claimed = await prismaOf(db).user.updateMany({
    where: { id: userId, otpEnabled: true, ...stepNotYetAccepted(step) },
    data: { otpLastStep: BigInt(step) },
  });
  return claimed.count === 1;
}

/** Turns two-factor off: the secrets and the last accepted step are forgotten. */
export async function disableTotp(tx: AnyClient, userId: string): Promise<void> {
  await prismaOf(tx).user.updateMany({
    where: { id: userId },
    data: { otpEnabled: false, otpSecretEnc: null, otpPendingSecretEnc: null, otpLastStep: null },
  });
}
