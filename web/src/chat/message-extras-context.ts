/**
 * What a message row needs for replies, reactions and edits (MessageExtras.tsx), handed down by
 * the chat page without threading it through the list: the conversation's view (its folded
 * annotations), the member, and the actions.
 */
import type { ConversationView, MemberClient } from '@enclave/client';
import { createContext, useContext } from 'react';

/** The message a reply is being written to, as the composer's banner shows it. */
export type ReplyTarget = { id: number; sender: string; line: string };

export type MessageExtras = {
  client: MemberClient;
  selfId: string;
  /** The conversation, named as a send names it ('all' or the peer's id). */
  receiverId: string;
  view: ConversationView;
  /** Starts a reply to this message (the composer shows it). */
  reply: (target: ReplyTarget) => void;
};

export const MessageExtrasContext = createContext<MessageExtras | null>(null);

/** The row's extras, or null outside a chat page (the row then shows none). */
export const useMessageExtras = (): MessageExtras | null => useContext(MessageExtrasContext);
