import { useMutation, useQueryClient } from '@tanstack/react-query';
import { GenerateKeysForm } from '../components/GenerateKeysForm';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { generateKeys } from '../net/admin-api';
import { adminToasts } from './admin-texts';
import { refreshKeys } from './use-admin-keys';

/** /admin's key generation: the shared form in a card; new keys refresh the figures and the list. */
export function GenerateKeysCard() {
  const queryClient = useQueryClient();
  const generate = useMutation({
    mutationFn: generateKeys,
    onSuccess: (keys) => {
      toast(adminToasts.generated(keys.length));
      void refreshKeys(queryClient);
    },
    onError: (error) => toast(adminToasts.generationFailed(isApiError(error) ? error.serverMessage : null)),
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Generate Access Keys</CardTitle>
        <CardDescription>One-time invite keys for a sale batch.</CardDescription>
      </CardHeader>
      <CardContent>
        <GenerateKeysForm generate={generate} invalidToast={adminToasts.generationFailed} />
      </CardContent>
    </Card>
  );
}
