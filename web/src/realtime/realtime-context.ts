import type { FrameDispatcher, MemberClient } from '@enclave/client';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { RealtimeSocket, SocketState } from '../net/socket';

/** The signed-in member's socket, the one dispatcher of its frames, and their client. */
export type Realtime = { socket: RealtimeSocket; frames: FrameDispatcher; client: MemberClient };

export const RealtimeContext = createContext<Realtime | null>(null);

/** The signed-in member's socket, frames and client, or null when nobody is signed in. */
export function useRealtime(): Realtime | null {
  return useContext(RealtimeContext);
}

/** The live socket of the signed-in member, or null when nobody is signed in. */
export function useRealtimeSocket(): RealtimeSocket | null {
  return useContext(RealtimeContext)?.socket ?? null;
}

/** The dispatcher of the socket's frames (register with `frames.on(type, handler)`), or null when nobody is signed in. */
export function useFrames(): FrameDispatcher | null {
  return useContext(RealtimeContext)?.frames ?? null;
}

/** The signed-in member's one client; only on screens a member is signed in to (MemberOnly). */
export function useMemberClient(): MemberClient {
  const client = useContext(RealtimeContext)?.client;
  if (!client) throw new Error('useMemberClient outside a signed-in member screen');
  return client;
}

const idle = (): SocketState => 'idle';
const noSubscription = () => () => undefined;

/** The socket's connection state, re-rendering on every change. */
export function useSocketState(): SocketState {
  const socket = useRealtimeSocket();
  return useSyncExternalStore(socket ? socket.subscribeState : noSubscription, socket ? () => socket.state : idle);
}
