import { ArrowDown } from 'lucide-react';
import { useEffect, useState, type RefObject } from 'react';
import { Button } from '../components/ui/Button';

/** Within this many pixels of the bottom the reader sees the newest message. */
const NEAR_BOTTOM_PX = 160;

type JumpToLatestProps = { scroller: RefObject<HTMLDivElement | null>; newest: number | null };

/**
 * Offered when messages arrive while the reader has scrolled up (the list then leaves them where
 * they are); gone once they are back at the bottom. Sticky at the foot of the scrolling list.
 */
export function JumpToLatest({ scroller, newest }: JumpToLatestProps) {
  const [atBottom, setAtBottom] = useState(true);
  const [seenNewest, setSeenNewest] = useState(newest);
  const [offered, setOffered] = useState(false);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
      setAtBottom(bottom);
      if (bottom) setOffered(false);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [scroller]);

  if (newest !== seenNewest) {
    setSeenNewest(newest);
    if (!atBottom && newest !== null && seenNewest !== null && newest > seenNewest) setOffered(true);
  }

  if (!offered) return null;
  return (
    <div className="pointer-events-none sticky bottom-1 flex justify-center pt-2">
      <Button
        size="sm"
        className="pointer-events-auto shadow-lg"
        onClick={() => scroller.current?.scrollTo({ top: scroller.current.scrollHeight, behavior: 'smooth' })}
      >
        <ArrowDown aria-hidden="true" /> Jump to latest
      </Button>
    </div>
  );
}
