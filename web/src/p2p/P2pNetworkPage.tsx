import { Network } from 'lucide-react';
import { useState } from 'react';
import { useAuth, type Session } from '../auth/auth-context';
import { BackLink, PageHeader } from '../components/PageHeader';
import { Card, CardContent } from '../components/ui/Card';
import { ConnectionMonitor } from './health/ConnectionMonitor';
import { P2pTestSuite } from './health/P2pTestSuite';
import { P2pManager } from './P2pManager';

/**
 * /p2p-network: what community nodes are, and for a signed-in member the P2P manager (host, join,
 * rooms), the connection monitor and the P2P test suite. Signed out, the explanation stays and the
 * manager asks the visitor to log in (docs/spec.md §2).
 */
export function P2pNetworkPage() {
  const { state } = useAuth();
  return (
    <div className="min-h-screen">
      <PageHeader
        icon={<Network className="size-5 text-accent" aria-hidden="true" />}
        title="P2P Network"
        actions={
          <BackLink href={state.status === 'loggedIn' ? '/chat' : '/'}>
            {state.status === 'loggedIn' ? 'Back to chat' : 'Back to sign in'}
          </BackLink>
        }
      />
      <main className="mx-auto grid max-w-6xl gap-6 p-4">
        <Explanation />
        {state.status === 'loggedIn' ? (
          <MemberArea session={state.session} />
        ) : state.status === 'restoring' ? (
          <p className="text-sm text-muted" aria-busy="true">
            Restoring secure session…
          </p>
        ) : (
          <Card>
            <CardContent className="pt-6 text-center text-sm text-muted">Please log in to access P2P networking features</CardContent>
          </Card>
        )}
      </main>
    </div>
  );
}

function Explanation() {
  return (
    <section aria-labelledby="p2p-about" className="grid gap-2 text-sm text-muted">
      <h2 id="p2p-about" className="text-base font-semibold text-foreground">
        Community nodes
      </h2>
      <p>
        A member can host a community node: others join it directly from their browsers over WebRTC, and the room's messages travel between
        the browsers only. The server lists the nodes and passes the few connection-setup messages (offer, answer, network candidates)
        between the two parties; it never sees what is said in a room.
      </p>
      <p>
        The host relays messages among the members of its room. Each message is end-to-end encrypted with the identity keys of the members
        in the room when it is sent, the host among them: the members of the room can read it, the server and anyone who joins later cannot.
      </p>
    </section>
  );
}

function MemberArea({ session }: { session: Session }) {
  // The data channel to the room's host while in one: the monitor measures throughput and loss on it.
  const [link, setLink] = useState<RTCPeerConnection | null>(null);
  return (
    <>
      <P2pManager session={session} onLinkChange={setLink} />
      <div className="grid gap-6 lg:grid-cols-2">
        <ConnectionMonitor link={link} />
        <P2pTestSuite />
      </div>
    </>
  );
}
