import { createContext, useContext, useSyncExternalStore } from 'react';
import type { RealtimeSocket, SocketState } from '../net/socket';

export const RealtimeContext = createContext<RealtimeSocket | null>(null);

/** The live socket of the signed-in member, or null when nobody is signed in. */
export function useRealtimeSocket(): RealtimeSocket | null {
  return useContext(RealtimeContext);
}

const idle = (): SocketState => 'idle';
const noSubscription = () => () => undefined;

/** The socket's connection state, re-rendering on every change. */
export function useSocketState(): SocketState {
  const socket = useRealtimeSocket();
  return useSyncExternalStore(socket ? socket.subscribeState : noSubscription, socket ? () => socket.state : idle);
}
