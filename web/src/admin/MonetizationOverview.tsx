import { CircleDollarSign } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';

/** The specification's static overview of how keys are sold (docs/spec.md §2). */
export function MonetizationOverview() {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <CircleDollarSign className="size-5 text-accent" aria-hidden="true" /> Monetization Overview
        </CardTitle>
        <CardDescription>How access keys reach buyers.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm text-muted md:grid-cols-3">
        <div className="grid content-start gap-1">
          <h3 className="font-medium text-foreground">Pricing</h3>
          <p>Each key grants one membership and sells for $10–$100 through authorized distributors.</p>
        </div>
        <div className="grid content-start gap-1">
          <h3 className="font-medium text-foreground">Purchase</h3>
          <p>
            Buyers open a ticket in the community server; staff handle the payment outside this app and hand over a key from a sale batch
            (its purchase ID).
          </p>
        </div>
        <div className="grid content-start gap-1">
          <h3 className="font-medium text-foreground">Redemption</h3>
          <p>
            A key works once. The buyer checks it on the key validation screen, then creates a vault; the key is then used and counts toward
            revenue.
          </p>
        </div>
      </CardContent>
    </Card>
  );
}
