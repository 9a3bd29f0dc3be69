import { AlertCircle, ArrowLeft } from 'lucide-react';
import { Link } from 'wouter';
import { useAuth } from './auth/auth-context';
import { Button } from './components/ui/Button';
import { Card, CardContent } from './components/ui/Card';

/** Any other path: says so and leads back, to the chat for a signed-in member, to the start for anyone else. */
export function NotFound() {
  const { state } = useAuth();
  const back = state.status === 'loggedIn' ? { href: '/chat', label: 'Back to chat' } : { href: '/', label: 'Back to Enclave' };
  return (
    <main className="flex min-h-screen w-full items-center justify-center bg-background p-4">
      <Card className="w-full max-w-md">
        <CardContent className="grid gap-4 pt-6">
          <div className="flex items-center gap-2">
            <AlertCircle className="size-8 shrink-0 text-danger" aria-hidden="true" />
            <h1 className="text-2xl font-bold text-foreground">404 Page Not Found</h1>
          </div>
          <p className="text-sm text-muted">Did you forget to add the page to the router?</p>
          <Button asChild className="justify-self-start">
            <Link href={back.href}>
              <ArrowLeft aria-hidden="true" /> {back.label}
            </Link>
          </Button>
        </CardContent>
      </Card>
    </main>
  );
}
