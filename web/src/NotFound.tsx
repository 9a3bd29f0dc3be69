import { AlertCircle } from 'lucide-react';
import { Card, CardContent } from './components/ui/Card';

export function NotFound() {
  return (
    <main className="flex min-h-screen w-full items-center justify-center bg-background p-4">
      <Card className="w-full max-w-md">
        <CardContent className="pt-6">
          <div className="mb-4 flex gap-2">
            <AlertCircle className="size-8 text-danger" aria-hidden="true" />
            <h1 className="text-2xl font-bold text-foreground">404 Page Not Found</h1>
          </div>
          <p className="mt-4 text-sm text-muted">Did you forget to add the page to the router?</p>
        </CardContent>
      </Card>
    </main>
  );
}
