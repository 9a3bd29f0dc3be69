/**
 * The ceiling for `npm run bench:load`: a bare `ws` broadcast server with nothing of Enclave in it.
 * A socket at /ws is answered `authenticated` at its first frame; `POST /send` broadcasts one
 * chat_message-shaped frame of BENCH_FRAME_BYTES (657, as Enclave's for the bench's text) to every
 * authenticated socket, encoded once, and answers its id. Started by bench/load/run.ts as the
 * server under test, with the same probe and pinning as Enclave's.
 */
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.PORT ?? '0');
const frameBytes = Number(process.env.BENCH_FRAME_BYTES ?? '657');
const sockets = new Set<WebSocket>();
let nextId = 0;

/** A frame shaped as Enclave's, padded in its content to exactly `frameBytes`. */
function frame(id: number): string {
  const head = `{"type":"chat_message","message":{"id":${id},"conversationId":"general","senderId":"bench","senderUsername":"bench","epochId":"bench","index":0,"encryptedContent":"`;
  const tail = `","timestamp":"${new Date().toISOString()}","expiresAt":null,"clientMessageId":"00000000-0000-4000-8000-000000000000","targetId":null}}`;
  return head + 'x'.repeat(Math.max(0, frameBytes - head.length - tail.length)) + tail;
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/send') {
    res.writeHead(404).end();
    return;
  }
  req.resume();
  req.on('end', () => {
    const id = ++nextId;
    const text = frame(id);
    for (const socket of sockets) socket.send(text);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
  });
});

const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (socket) => {
  socket.once('message', () => {
    sockets.add(socket);
    socket.send(JSON.stringify({ type: 'authenticated', userId: 'bench' }));
  });
  socket.on('close', () => sockets.delete(socket));
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`bare ws server running at http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => {
  for (const socket of sockets) socket.terminate();
  server.close(() => process.exit(0));
});
