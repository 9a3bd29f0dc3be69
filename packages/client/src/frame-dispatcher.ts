/**
 * The one place a member's server frames are handed out: each part of the client registers for the
 * frame types it handles, typed by the frame table (packages/protocol/src/frames.ts), instead of
 * every listener reading every frame and switching on its type.
 */
import type { ServerFrame } from '@enclave/protocol';

/** The server frame of one `type`. */
export type FrameOf<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;

/** What a part of the client subscribes through: the frames of one type, until it unsubscribes. */
export type FrameSource = {
  on<T extends ServerFrame['type']>(type: T, handler: (frame: FrameOf<T>) => void): () => void;
};

type Handler = (frame: ServerFrame) => void;

/**
 * @example
 * ```ts
 * const frames = new FrameDispatcher();
 * socket.onFrame(frames.dispatch);
 * const off = frames.on('typing', (frame) => show(frame.userId));
 * ```
 */
export class FrameDispatcher implements FrameSource {
  private readonly handlers = new Map<ServerFrame['type'], Set<Handler>>();

  on<T extends ServerFrame['type']>(type: T, handler: (frame: FrameOf<T>) => void): () => void {
    const set = this.handlers.get(type) ?? new Set<Handler>();
    this.handlers.set(type, set);
    // Only frames of `type` reach this set, so the handler sees its own type.
    const entry = handler as Handler;
    set.add(entry);
    return () => set.delete(entry);
  }

  /** Hands a frame to the handlers of its type, in the order they registered; one that throws does not stop the others. */
  dispatch = (frame: ServerFrame): void => {
    for (const handler of [...(this.handlers.get(frame.type) ?? [])]) {
      try {
        handler(frame);
      } catch (error) {
        console.error(`a ${frame.type} frame handler failed`, error);
      }
    }
  };
}
