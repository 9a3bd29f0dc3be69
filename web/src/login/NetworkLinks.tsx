import { Crown, KeyRound, ShieldCheck, ShoppingCart } from 'lucide-react';
import { Button } from '../components/ui/Button';
import { COMMUNITY_INVITE_URL, externalRoutes } from '../config';

function openInNewTab(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

/** The purchase button: keys are bought through a ticket in the community server. */
export function PurchaseKeyButton() {
  return (
    <Button variant="secondary" className="w-full" onClick={() => openInNewTab(COMMUNITY_INVITE_URL)}>
      <ShoppingCart aria-hidden="true" /> Purchase Access Key
    </Button>
  );
}

/** Buttons that open the other screens in new tabs. */
export function NetworkLinks() {
  return (
    <nav aria-label="Network tools" className="grid grid-cols-3 gap-2">
      <Button variant="outline" size="sm" onClick={() => openInNewTab(externalRoutes.validate)}>
        <ShieldCheck aria-hidden="true" /> Validate Key
      </Button>
      <Button variant="outline" size="sm" onClick={() => openInNewTab(externalRoutes.admin)}>
        <KeyRound aria-hidden="true" /> Admin Panel
      </Button>
      <Button variant="outline" size="sm" onClick={() => openInNewTab(externalRoutes.creator)}>
        <Crown aria-hidden="true" /> Creator Access
      </Button>
    </nav>
  );
}
