/** How the operator socket (socket.ts) serves a command: a JSON body checked by zod, then run by the instance. */
import type { z } from 'zod';
import type { AppContext } from '../context';
import { describeIssues } from '../http/errors';

/** A command's outcome: its result to come, or why its body was refused (a 400 with this message). */
export type Handled = { result: Promise<unknown> } | { refused: string };
export type Command = (ctx: AppContext, body: unknown) => Handled;

/** A command: its JSON body parsed by `schema`, then run; a refusal of the body is zod's message. */
export const command =
  <S extends z.ZodType>(schema: S, run: (ctx: AppContext, cmd: z.output<S>) => Promise<unknown>): Command =>
  (ctx, body) => {
    const parsed = schema.safeParse(body);
    return parsed.success ? { result: run(ctx, parsed.data) } : { refused: describeIssues(parsed.error) };
  };
