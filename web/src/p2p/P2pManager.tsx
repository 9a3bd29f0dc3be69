import { P2P_MAX_CONNECTIONS, routes, type P2pNode, type PublicUser } from '@enclave/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Plug, RefreshCw, Server, Users } from 'lucide-react';
import { useEffect, useMemo, useState, useSyncExternalStore, type FormEvent } from 'react';
import type { Session } from '../auth/auth-context';
import { useUsers } from '../chat/use-users';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { StatCard } from '../components/ui/StatCard';
import { call } from '../net/http';
import { useFrames, useRealtime, useRealtimeSocket } from '../realtime/realtime-context';
import { errorText } from './error-text';
import { memberSetup } from './member-setup';
import { P2pController, type P2pSnapshot } from './p2p-controller';
import { RoomPanel } from './RoomPanel';

const nodesQueryKey = ['p2p-nodes'] as const;
const noSnapshot: P2pSnapshot = { hostingNodeId: null, room: null, link: null };
const noSubscription = () => () => undefined;

/** This tab's P2P session for the signed-in member, alive while the page is. */
function useP2pController(session: Session): P2pController | null {
  const socket = useRealtimeSocket();
  const frames = useFrames();
  const client = useRealtime()?.client;
  const controller = useMemo(
    () => (socket && frames && client ? new P2pController(socket, frames, memberSetup(session, client.trust, client.members)) : null),
    [socket, frames, client, session],
  );
  useEffect(() => controller?.start(), [controller]);
  return controller;
}

/** Node stats, start/stop hosting, refresh, the host list with Connect, and the room view. */
export function P2pManager({ session, onLinkChange }: { session: Session; onLinkChange: (link: RTCPeerConnection | null) => void }) {
  const queryClient = useQueryClient();
  const frames = useFrames();
  const controller = useP2pController(session);
  const snapshot = useSyncExternalStore(controller?.subscribe ?? noSubscription, controller?.snapshot ?? (() => noSnapshot));
  const nodes = useQuery({ queryKey: nodesQueryKey, queryFn: async () => (await call(routes.p2pNodes, {})).nodes });
  const users = useUsers();
  const [connectError, setConnectError] = useState<string | null>(null);

  useEffect(() => onLinkChange(snapshot.link), [snapshot.link, onLinkChange]);

  // Connections opening and closing change the counts; a host's socket coming or going, its node's status.
  useEffect(() => {
    if (!frames) return;
    const refresh = () => void queryClient.invalidateQueries({ queryKey: nodesQueryKey });
    const offs = [frames.on('p2p_connection', refresh), frames.on('presence', refresh), frames.on('users_changed', refresh)];
    return () => offs.forEach((off) => off());
  }, [frames, queryClient]);

  const connect = useMutation({
    mutationFn: async (node: P2pNode) => {
      setConnectError(null);
      const connection = await call(routes.p2pConnect, { params: { id: node.id } });
      await controller?.join(connection);
    },
    onError: (error) => {
      console.warn('p2p: connect failed', error);
      setConnectError(`Could not connect: ${errorText(error)}`);
    },
    // A refusal (full, offline) means the list was stale.
    onSettled: () => queryClient.invalidateQueries({ queryKey: nodesQueryKey }),
  });

  const list = nodes.data ?? [];
  const online = list.filter((n) => n.status === 'online');
  const ownNode = list.find((n) => n.hostId === session.user.id) ?? null;
  const nameOf = (id: string) => users.data?.find((u: PublicUser) => u.id === id)?.username ?? 'unknown member';
  const inRoom = snapshot.room !== null && snapshot.room.status !== 'closed';

  return (
    <section aria-label="P2P manager" className="grid gap-6">
      <div className="grid gap-4 sm:grid-cols-3">
        <StatCard label="Nodes online" value={nodes.data ? online.length : null} icon={<Server className="size-4" aria-hidden="true" />} />
        <StatCard
          label="Total connections"
          value={nodes.data ? online.reduce((sum, n) => sum + n.currentConnections, 0) : null}
          hint="Joiners whose host accepted them, over all online nodes"
          icon={<Plug className="size-4" aria-hidden="true" />}
        />
        <StatCard
          label="Nodes listed"
          value={nodes.data ? list.length : null}
          hint="Online or not"
          icon={<Users className="size-4" aria-hidden="true" />}
        />
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <HostingCard
          controller={controller}
          hostingNodeId={snapshot.hostingNodeId}
          ownNode={ownNode}
          joinedRoom={inRoom && snapshot.room?.role === 'joiner'}
        />
        <Card>
          <CardHeader className="flex-row items-center justify-between">
            <CardTitle>Community nodes</CardTitle>
            <Button variant="outline" size="sm" onClick={() => void nodes.refetch()} disabled={nodes.isFetching}>
              <RefreshCw aria-hidden="true" /> Refresh
            </Button>
          </CardHeader>
          <CardContent className="grid gap-3">
            {nodes.isError && (
              <p role="alert" className="text-sm text-danger">
                Could not load the nodes: {errorText(nodes.error)}
              </p>
            )}
            {connectError && (
              <p role="alert" className="text-sm text-danger">
                {connectError}
              </p>
            )}
            {nodes.data && list.length === 0 && <p className="text-sm text-muted">No member hosts a node yet.</p>}
            <ul className="grid gap-2" aria-label="Nodes">
              {list.map((node) => (
                <NodeRow
                  key={node.id}
                  node={node}
                  own={node.hostId === session.user.id}
                  joined={inRoom && snapshot.room?.nodeId === node.id}
                  busy={connect.isPending}
                  onConnect={() => connect.mutate(node)}
                />
              ))}
            </ul>
          </CardContent>
        </Card>
      </div>

      {snapshot.room && controller && <RoomPanel room={snapshot.room} controller={controller} nameOf={nameOf} selfId={session.user.id} />}
    </section>
  );
}

function NodeRow({
  node,
  own,
  joined,
  busy,
  onConnect,
}: {
  node: P2pNode;
  own: boolean;
  joined: boolean;
  busy: boolean;
  onConnect: () => void;
}) {
  const full = node.currentConnections >= node.maxConnections;
  const offline = node.status !== 'online';
  const why = own
    ? 'Your own node'
    : offline
      ? 'Offline: its host is not connected'
      : full
        ? 'Full'
        : joined
          ? 'You are in this room'
          : null;
  return (
    <li
      className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-border p-3"
      data-node={node.hostUsername}
      aria-label={`Node of ${node.hostUsername}`}
    >
      <div className="grid gap-1 text-sm">
        <div className="flex items-center gap-2">
          <span className="font-medium">{node.hostUsername}</span>
          <Badge tone={offline ? 'neutral' : 'success'} data-status={node.status}>
            {offline ? 'Offline' : 'Online'}
          </Badge>
        </div>
        <span className="text-muted">
          {node.location} · <span data-connections>{node.currentConnections}</span> / {node.maxConnections} connections
          {node.ipAddress && ` · ${node.ipAddress}`}
        </span>
      </div>
      <div className="flex items-center gap-2">
        {why && <span className="text-xs text-muted">{why}</span>}
        <Button size="sm" onClick={onConnect} disabled={why !== null || busy} aria-label={`Connect to ${node.hostUsername}`}>
          Connect
        </Button>
      </div>
    </li>
  );
}

function HostingCard({
  controller,
  hostingNodeId,
  ownNode,
  joinedRoom,
}: {
  controller: P2pController | null;
  hostingNodeId: string | null;
  ownNode: P2pNode | null;
  /** This tab is in another member's room, which hosting leaves. */
  joinedRoom: boolean;
}) {
  const queryClient = useQueryClient();
  const [location, setLocation] = useState('');
  const [maxConnections, setMaxConnections] = useState(String(P2P_MAX_CONNECTIONS));
  const [publishAddress, setPublishAddress] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: nodesQueryKey });

  const start = useMutation({
    mutationFn: () =>
      call(routes.p2pHost, {
        body: { nodeType: 'community_host', capabilities: ['chat'], maxConnections: Number(maxConnections), location, publishAddress },
      }),
    onSuccess: ({ node }) => {
      controller?.host(node.id);
      void refresh();
    },
    onError: (error) => console.warn('p2p: hosting failed', error),
  });
  const stop = useMutation({
    mutationFn: () => call(routes.p2pStopHosting, {}),
    onSuccess: () => {
      controller?.stopServing();
      void refresh();
    },
    onError: (error) => console.warn('p2p: stopping failed', error),
  });
  const error = start.error ?? stop.error;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Host a node</CardTitle>
        <CardDescription>
          Members who connect join your room; your browser relays their messages while this page stays open.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {error && (
          <p role="alert" className="text-sm text-danger">
            {errorText(error)}
          </p>
        )}
        {hostingNodeId ? (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm">
              <Badge tone="success">Hosting</Badge>{' '}
              {ownNode && (
                <span className="text-muted">
                  {ownNode.location} · {ownNode.currentConnections} / {ownNode.maxConnections} connections
                </span>
              )}
            </p>
            <Button variant="danger" onClick={() => stop.mutate()} disabled={stop.isPending}>
              Stop hosting
            </Button>
          </div>
        ) : (
          <form className="grid gap-3" onSubmit={submit}>
            {ownNode && (
              <p className="text-sm text-muted">
                Your node ({ownNode.location}) is still listed from an earlier visit, but no page serves it: start hosting to serve it here,
                or{' '}
                <button type="button" className="text-accent hover:underline" onClick={() => stop.mutate()}>
                  remove it
                </button>
                .
              </p>
            )}
            <div className="grid gap-1.5">
              <Label htmlFor="p2p-location">Location label</Label>
              <Input
                id="p2p-location"
                value={location}
                onChange={(e) => setLocation(e.target.value)}
                maxLength={64}
                required
                placeholder="Berlin, home lab…"
              />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="p2p-max">Max connections</Label>
              <Input
                id="p2p-max"
                type="number"
                min={1}
                max={P2P_MAX_CONNECTIONS}
                value={maxConnections}
                onChange={(e) => setMaxConnections(e.target.value)}
                required
              />
            </div>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={publishAddress} onChange={(e) => setPublishAddress(e.target.checked)} />
              Publish my address to other members
            </label>
            <p className="text-xs text-muted">
              Unpublished, your address is still visible to the members who connect to you (WebRTC needs it), unless the network uses a
              relay server.
            </p>
            <Button type="submit" disabled={start.isPending || !controller}>
              Start hosting
            </Button>
            {joinedRoom && <p className="text-xs text-muted">Starting to host leaves the room you are in.</p>}
          </form>
        )}
      </CardContent>
    </Card>
  );
}
