/** localStorage holds only the non-secret profile of the signed-in member. */
import { selfUserSchema, type SelfUser } from '@enclave/protocol';

export const USER_STORAGE_KEY = 'enclave.user';

export function storeUser(user: SelfUser): void {
  localStorage.setItem(USER_STORAGE_KEY, JSON.stringify(user));
}

export function readStoredUser(): SelfUser | null {
  const raw = localStorage.getItem(USER_STORAGE_KEY);
  if (raw === null) return null;
  try {
    const parsed = selfUserSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function forgetUser(): void {
  localStorage.removeItem(USER_STORAGE_KEY);
}
