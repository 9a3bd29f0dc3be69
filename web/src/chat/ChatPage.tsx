import { RecipientKeyError, type GroupView } from '@enclave/client';
import { conversationIdFor, isGroupConversation, limits, type Message, type MessageContent, type PublicUser } from '@enclave/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { Search } from 'lucide-react';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { type Session } from '../auth/auth-context';
import { MemberOnly } from '../auth/MemberOnly';
import { dismissToast, toast } from '../components/ui/toast-store';
import { useMemberClient, useSocketState } from '../realtime/realtime-context';
import { Button } from '../components/ui/Button';
import { ApiError } from '../net/api-error';
import { sendFile } from './attachments';
import { BanDialog } from './BanDialog';
import { ChatTopBar } from './ChatTopBar';
import { ConversationHeader } from './ConversationHeader';
import { DeleteMessageDialog } from './DeleteMessageDialog';
import { DisappearingControl } from './DisappearingControl';
import { GroupMembersDialog, type GroupActions } from './GroupMembersDialog';
import { groupTitle, LEFT_GROUP_TEXT, receiverIdOf } from './groups';
import { KeyChangeBanner } from './KeyChangeBanner';
import { MessageSearch } from './MessageSearch';
import { BANNED_PEER_TEXT } from './moderation-texts';
import { MessageInput } from './MessageInput';
import { MembersDrawer } from './MembersDrawer';
import { MessageList } from './MessageList';
import { ReplyBanner } from './MessageExtras';
import { MessageExtrasContext, type ReplyTarget } from './message-extras-context';
import { NewGroupDialog } from './NewGroupDialog';
import { NotificationSettings } from './NotificationSettings';
import { ReadReceiptsSetting } from './ReadReceiptsSetting';
import { SafetyNumberDialog } from './SafetyNumberDialog';
import { SkippedRecipientsBanner } from './SkippedRecipientsBanner';
import { TypingBar } from './TypingBar';
import { UserList } from './UserList';
import { useChatRealtime } from './use-chat-realtime';
import { forgetGroup, rememberGroup, useGroups } from './use-groups';
import { useKeyPins } from './use-key-pins';
import { useModeration } from './use-moderation';
import { useNotifications } from './use-notifications';
import { useReadReceipts, useReadReceiptsSetting } from './use-read-receipts';
import { useTyping } from './use-typing';
import { useUnread } from './use-unread';
import { useUsers } from './use-users';

export function ChatPage() {
  return <MemberOnly screen={(session) => <ChatScreen session={session} />} />;
}

function ChatScreen({ session }: { session: Session }) {
  const client = useMemberClient();
  const users = useUsers();
  const socketState = useSocketState();
  const { pins, actions: pinActions } = useKeyPins(client.trust, session.user.id, users.data);
  const [safetyNumberOf, setSafetyNumberOf] = useState<string | null>(null);
  // The open conversation as a send names it: 'all', a member's id (a DM) or a group's id.
  const [receiverId, setReceiverId] = useState('all');
  const selfId = session.user.id;
  const conversationId = conversationIdFor(selfId, receiverId);
  const groups = useGroups(client, selfId);
  const queryClient = useQueryClient();
  const [newGroupOpen, setNewGroupOpen] = useState(false);
  const groupId = isGroupConversation(receiverId) ? receiverId : null;
  const group: GroupView | null = (groupId && groups.data?.find((g) => g.id === groupId)) || null;
  const peerId = receiverId === 'all' || groupId ? null : receiverId;
  const peer: PublicUser | null = (peerId && users.data?.find((u) => u.id === peerId)) || null;
  // Roles come from the server (docs/security.md §7): the member list follows promotions live
  // (users_changed), the session's copy is only the fallback until it arrives.
  const selfRole = users.data?.find((u) => u.id === selfId)?.role ?? session.user.role;
  const isAdmin = selfRole === 'admin';
  const { ban, unban } = useModeration();
  const [banTarget, setBanTarget] = useState<PublicUser | null>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [searching, setSearching] = useState(false);
  // The message chosen in the search, in the conversation it was chosen in.
  const [highlight, setHighlight] = useState<{ id: number; conversationId: string } | null>(null);

  // What the screens before said (registration, sign-in) is done with; left open, it would sit
  // over the conversation.
  useEffect(() => dismissToast(), []);

  useEffect(() => {
    void client.open(receiverId);
  }, [client, receiverId]);

  // A member list with new members or keys may hold what a message was waiting for (presence
  // changes alone do not count).
  const memberKeys = users.data?.map((u) => `${u.id}/${u.signingPublicKey}`).join(',');
  useEffect(() => {
    if (memberKeys !== undefined) void client.store.retryUnreadable();
  }, [client, memberKeys]);

  useEffect(() => {
    if (users.error) console.error('could not load the member list', users.error);
  }, [users.error]);

  const view = useSyncExternalStore(client.store.subscribe, () => client.store.view(conversationId));
  const unread = useUnread(selfId, conversationId, view.messages);
  const { keepGroups } = unread;

  useEffect(() => {
    if (!groups.data) return;
    keepGroups(groups.data.map((g) => g.id));
    client.store.keepGroups(groups.data.map((g) => g.id));
  }, [groups.data, keepGroups, client]);
  // Removed from the open group (or left it in another tab): nothing more can be read or sent
  // there, so the channel opens instead, and the member is told once each time.
  const [groupsDropped, setGroupsDropped] = useState(0);
  if (groupId && groups.data && !groups.isFetching && !group) {
    setReceiverId('all');
    setGroupsDropped(groupsDropped + 1);
  }
  useEffect(() => {
    if (groupsDropped > 0) toast({ title: LEFT_GROUP_TEXT, tone: 'destructive' });
  }, [groupsDropped]);
  const readReceipts = useReadReceiptsSetting();
  // Read receipts in DMs and in groups small enough for them (the server keeps none in larger ones).
  const receiptsIn = peerId ?? (group && group.members.length <= limits.readReceiptsMaxGroupMembers ? group.id : null);
  const readMark = useReadReceipts(selfId, receiptsIn, view.messages, readReceipts.enabled);
  const notifications = useNotifications(selfId, {
    isInView: unread.isInView,
    nameOf: (id) => users.data?.find((u) => u.id === id)?.username,
    open: (message) => setReceiverId(receiverIdOf(message, selfId)),
    conversationId,
  });
  useChatRealtime(client, notifications);
  const [deleteTarget, setDeleteTarget] = useState<Message | null>(null);
  const askDelete = useCallback((message: Message) => setDeleteTarget(message), []);
  // The message a reply is being written to, in the conversation it belongs to.
  const [replying, setReplying] = useState<(ReplyTarget & { conversationId: string }) | null>(null);
  const replyTarget = replying?.conversationId === conversationId ? replying : null;
  const extras = useMemo(
    () => ({ client, selfId, receiverId, view, reply: (target: ReplyTarget) => setReplying({ ...target, conversationId }) }),
    [client, selfId, receiverId, view, conversationId],
  );
  const typing = useTyping(selfId, conversationId);

  /**
   * Sends (or, with the id of one that failed, retries) a message. A file is encrypted and
   * uploaded first, its key then travelling in the encrypted message; a refused upload rejects (the
   * composer keeps the file and says why, in the server's words). Past that it never rejects: a
   * message that could not be sent stays in the list, marked, with Retry (chat-store.ts `Outgoing`).
   */
  async function send(text: string, file: File | null = null, localId = client.senderKeys.newMessageId()) {
    let content: MessageContent = replyTarget ? { text, replyTo: replyTarget.id } : { text };
    if (replyTarget) setReplying(null);
    if (file) {
      try {
        content = { ...content, attachment: await sendFile(file, receiverId) };
      } catch (error) {
        console.error('upload failed', error);
        const description =
          error instanceof ApiError && error.serverMessage
            ? error.serverMessage
            : error instanceof Error
              ? error.message
              : 'Failed to send the file';
        toast({ title: 'Send Failed', description, tone: 'destructive' });
        throw error;
      }
    }
    try {
      await client.send(receiverId, content, localId);
      toast({
        title: 'Message Sent',
        description: receiverId === 'all' ? 'Message sent to channel' : 'Encrypted message sent',
        tone: 'success',
      });
    } catch (error) {
      console.error('send failed', error);
      const description = error instanceof RecipientKeyError ? error.message : 'Failed to send message';
      toast({ title: 'Send Failed', description, tone: 'destructive' });
    }
  }

  const peerName = peer?.username ?? 'member';
  // The open group's members as the member list has them (keys, bans), the member themself left out.
  const groupMembers = group ? (users.data ?? []).filter((u) => u.id !== selfId && group.members.some((m) => m.id === u.id)) : [];
  const groupActions: GroupActions | null = group && {
    add: async (memberIds) => rememberGroup(queryClient, selfId, await client.groups.add(group, memberIds)),
    remove: async (member) => {
      await client.groups.remove(group.id, member.id);
      await rememberGroup(queryClient, selfId, { ...group, members: group.members.filter((m) => m.id !== member.id) });
    },
    leave: async () => {
      await client.groups.remove(group.id, selfId);
      setReceiverId('all');
      await forgetGroup(queryClient, selfId, group.id);
      toast({ title: 'Left the Group', description: `You left ${groupTitle(group)}`, tone: 'success' });
    },
  };
  const memberList = (variant: 'sidebar' | 'drawer') => (
    <UserList
      variant={variant}
      selfId={selfId}
      users={users.data}
      loading={users.isPending}
      selectedId={receiverId === 'all' ? null : receiverId}
      groups={groups.data}
      groupsFailed={groups.isError}
      onNewGroup={() => {
        setDrawerOpen(false);
        setNewGroupOpen(true);
      }}
      pins={pins}
      onShowSafetyNumber={setSafetyNumberOf}
      unreadOf={(id) => unread.countOf(conversationIdFor(selfId, id ?? 'all'))}
      onSelect={(id) => {
        setReceiverId(id ?? 'all');
        setDrawerOpen(false);
      }}
      moderation={isAdmin ? { onBan: setBanTarget, onUnban: (user) => unban.mutate(user), busy: ban.isPending || unban.isPending } : null}
    />
  );
  // Phones: the screen's height is the dynamic viewport (dvh), which shrinks above the on-screen
  // keyboard, and only the message list scrolls, so the composer stays in view at the bottom.
  return (
    <div className="flex h-dvh flex-col md:h-auto md:min-h-dvh">
      <ChatTopBar user={session.user} admin={isAdmin} />
      <main className="mx-auto flex min-h-0 w-full max-w-6xl flex-1 flex-col p-2 sm:p-4 md:grid md:grid-cols-[18rem_minmax(0,1fr)] md:gap-4">
        {memberList('sidebar')}
        <section className="flex min-h-0 flex-1 flex-col rounded-xl border border-border bg-surface md:h-[calc(100dvh-7rem)] md:min-h-[28rem] md:flex-none">
          <ConversationHeader
            peer={peer}
            group={
              group && groupActions
                ? {
                    view: group,
                    members: (
                      <GroupMembersDialog key={group.id} group={group} selfId={selfId} users={users.data ?? []} actions={groupActions} />
                    ),
                  }
                : null
            }
            pin={peer ? pins.get(peer.id) : undefined}
            socketState={socketState}
            onShowSafetyNumber={setSafetyNumberOf}
            timer={
              <DisappearingControl
                key={conversationId}
                receiverId={receiverId}
                seconds={view.disappearingSeconds}
                // Either party of a DM, any member of a group; in the channel, admins and the creator's account (docs/security.md §7).
                canChange={peer !== null || group !== null || isAdmin || session.user.isCreatorAccount}
                onChanged={(event) => client.store.event(event)}
              />
            }
            actions={
              <Button
                variant={searching ? 'secondary' : 'outline'}
                size="icon"
                aria-label="Search messages"
                aria-pressed={searching}
                onClick={() => setSearching(!searching)}
              >
                <Search aria-hidden="true" />
              </Button>
            }
            members={
              <MembersDrawer open={drawerOpen} onOpenChange={setDrawerOpen} unread={unread.total}>
                {memberList('drawer')}
              </MembersDrawer>
            }
          />
          <KeyChangeBanner members={peer ? [peer] : group ? groupMembers : (users.data ?? [])} pins={pins} onVerify={setSafetyNumberOf} />
          <SkippedRecipientsBanner skipped={client.skipped} conversationId={conversationId} />
          {searching ? (
            <MessageSearch
              view={view}
              nameOf={(id) => users.data?.find((u) => u.id === id)?.username ?? 'Unknown User'}
              onChoose={(id) => setHighlight({ id, conversationId })}
              onClose={() => setSearching(false)}
            />
          ) : null}
          <MessageExtrasContext.Provider value={extras}>
            <MessageList
              view={view}
              selfId={selfId}
              dm={peer ? { selfName: session.user.username, peerName } : null}
              inGroup={group !== null}
              onLoadOlder={() => void client.store.loadOlder(conversationId)}
              outgoing={{
                retry: (o) => void send(o.text, null, o.localId),
                discard: (o) => client.store.discard(conversationId, o.localId),
              }}
              dividerBeforeId={unread.dividerBeforeId}
              onDelete={askDelete}
              highlight={highlight?.conversationId === conversationId ? highlight : null}
              readMark={readMark}
            />
          </MessageExtrasContext.Provider>
          <TypingBar
            typingIds={typing.typingIds}
            sharing={typing.sharing}
            onSharingChange={typing.setSharing}
            settings={
              <>
                <NotificationSettings notifications={notifications} />
                <ReadReceiptsSetting setting={readReceipts} />
              </>
            }
          />
          <ReplyBanner target={replyTarget} onCancel={() => setReplying(null)} />
          <MessageInput
            key={conversationId}
            connected={socketState === 'authenticated'}
            placeholder={
              peer
                ? `Encrypted message to ${peer.username}…`
                : group
                  ? `Encrypted message to ${groupTitle(group)}…`
                  : 'Message the general channel…'
            }
            onSend={send}
            onType={typing.onType}
            // The server refuses to write to a banned member (server/src/access/rules.ts); the member
            // list follows bans live (users_changed), so the composer does too.
            blocked={peer?.isBanned ? BANNED_PEER_TEXT : null}
            // @ completes to the peer in a DM, to the group's members in a group, to every member in the channel.
            mentionable={
              peer
                ? [peer.username]
                : group
                  ? group.members.filter((m) => m.id !== selfId).map((m) => m.username)
                  : (users.data ?? []).filter((u) => u.id !== selfId).map((u) => u.username)
            }
          />
        </section>
      </main>
      <NewGroupDialog
        open={newGroupOpen}
        onOpenChange={setNewGroupOpen}
        users={users.data ?? []}
        selfId={selfId}
        create={(name, memberIds) => client.groups.create(name, memberIds)}
        onCreated={(created) =>
          void rememberGroup(queryClient, selfId, created).then(() => {
            setReceiverId(created.id);
            setNewGroupOpen(false);
          })
        }
      />
      <DeleteMessageDialog
        message={deleteTarget}
        onDeleted={(message) => client.store.removed(message.conversationId, [message.id], 'deleted')}
        onClose={() => setDeleteTarget(null)}
      />
      <SafetyNumberDialog
        self={session.publicIdentity}
        contact={users.data?.find((u) => u.id === safetyNumberOf) ?? null}
        status={safetyNumberOf ? pins.get(safetyNumberOf) : undefined}
        actions={pinActions}
        onClose={() => setSafetyNumberOf(null)}
      />
      {isAdmin ? (
        <BanDialog
          key={banTarget?.id ?? 'closed'}
          target={banTarget}
          busy={ban.isPending}
          onConfirm={(user, reason) => ban.mutate({ user, reason }, { onSettled: () => setBanTarget(null) })}
          onCancel={() => setBanTarget(null)}
        />
      ) : null}
    </div>
  );
}
