/**
 * The admin commands of the operator socket (`npm run admin`, server/src/cli/admin.ts): the
 * creator console's member list, bans, roles and emergency shutdown, run by the instance through
 * the very service functions the console's routes call, so that a ban reaches every instance's
 * sockets over the bus and each action leaves its audit row.
 *
 * The operator acts with the creator's rights (whoever owns the socket owns the server, its
 * database and its master key file): a ban from here is recorded as the creator's (`banned_by`,
 * which decides who may lift it, access/rules.ts), and its audit row names the actor 'operator'.
 */
import { emergencyStateSchema, errorCodes, monitoredUserSchema, roleSchema, usernameSchema } from '@enclave/protocol';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context';
import { declareEmergency, endEmergency } from '../creator/emergency';
import { monitoredUsers } from '../creator/members';
import { users } from '../db/schema';
import { HttpError } from '../http/errors';
import { banMember, setStanding, unbanMember, type Acting } from '../users/moderation';
import { command, type Command } from './command';

/** The actor of the audit rows these commands write. */
export const OPERATOR_ACTOR = 'operator';
const operator = { moderator: { kind: 'creator' }, actor: OPERATOR_ACTOR, req: null } satisfies Acting;

export const OPERATOR_BAN_REASON = 'Banned by the operator';

export const membersCommandSchema = z.strictObject({});
export const banCommandSchema = z.strictObject({
  username: usernameSchema,
  reason: z.string().trim().min(1).max(200).default(OPERATOR_BAN_REASON),
});
export const unbanCommandSchema = z.strictObject({ username: usernameSchema });
export const roleCommandSchema = z.strictObject({ username: usernameSchema, role: roleSchema });
export const emergencyCommandSchema = z.strictObject({ active: z.boolean() });

export const membersAnswerSchema = z.object({ users: z.array(monitoredUserSchema) });
export type MembersAnswer = z.infer<typeof membersAnswerSchema>;
/** The member acted on, by the name the database spells it. */
export const memberAnswerSchema = z.object({ username: z.string() });
export type MemberAnswer = z.infer<typeof memberAnswerSchema>;
export const roleAnswerSchema = memberAnswerSchema.extend({ role: roleSchema });
export type RoleAnswer = z.infer<typeof roleAnswerSchema>;
export const emergencyAnswerSchema = z.object({ emergency: emergencyStateSchema, banned: z.number().int().nonnegative().optional() });
export type EmergencyAnswer = z.infer<typeof emergencyAnswerSchema>;

/** The member of this name (usernames are unique whatever their case), or a 404 that names it. */
async function memberNamed(ctx: AppContext, username: string): Promise<{ id: string; username: string }> {
  const [found] = await ctx.db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(eq(sql`lower(${users.username})`, username.toLowerCase()));
  if (!found) throw new HttpError(404, errorCodes.notFound, `No member named ${username}`);
  return found;
}

export const adminCommands: Record<string, Command> = {
  '/members': command(membersCommandSchema, async (ctx): Promise<MembersAnswer> => ({ users: await monitoredUsers(ctx.db) })),
  '/ban': command(banCommandSchema, async (ctx, cmd): Promise<MemberAnswer> => {
    const member = await memberNamed(ctx, cmd.username);
    await banMember(ctx, operator, member.id, cmd.reason);
    return { username: member.username };
  }),
  '/unban': command(unbanCommandSchema, async (ctx, cmd): Promise<MemberAnswer> => {
    const member = await memberNamed(ctx, cmd.username);
    await unbanMember(ctx, operator, member.id);
    return { username: member.username };
  }),
  '/role': command(roleCommandSchema, async (ctx, cmd): Promise<RoleAnswer> => {
    const member = await memberNamed(ctx, cmd.username);
    await setStanding(ctx, operator, member.id, { role: cmd.role });
    return { username: member.username, role: cmd.role };
  }),
  '/emergency': command(emergencyCommandSchema, async (ctx, cmd): Promise<EmergencyAnswer> =>
    cmd.active ? declareEmergency(ctx, operator) : { emergency: await endEmergency(ctx, operator) },
  ),
};
