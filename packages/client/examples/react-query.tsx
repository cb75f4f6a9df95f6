/**
 * @mteja/client with TanStack Query (`@trpc/tanstack-react-query`): the client's `api` is a tRPC client
 * of the service's router, so it plugs into tRPC's React Query integration as it is.
 *
 *   npm install ./mteja-client-<version>.tgz @trpc/tanstack-react-query @tanstack/react-query react
 */
import { QueryClient, QueryClientProvider, useMutation, useQuery } from "@tanstack/react-query";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import { callOptions, createMtejaClient, isMtejaError, type AppRouter, type RouterOutputs } from "@mteja/client";

const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

const mteja = createMtejaClient({ baseUrl: "https://accounts.example.co.ke", tenantId: "duka" });
const queryClient = new QueryClient();

export function MtejaProvider({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={mteja.api} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

type Address = RouterOutputs["addresses"]["list"]["data"]["addresses"][number];

export function useCheckout(orderId: string) {
  const trpc = useTRPC();
  const [error, setError] = useState<string | null>(null);
  const me = useQuery(trpc.profile.me.queryOptions());
  const addresses = useQuery(trpc.addresses.list.queryOptions());
  const pay = useMutation(
    trpc.payments.stkPush.mutationOptions({
      // One prompt per order, however often "Pay" is pressed.
      trpc: callOptions({ idempotencyKey: orderId }),
      onError: (e) => setError(isMtejaError(e, "RATE_LIMITED") ? "Too many attempts, wait a minute." : e.message),
    }),
  );
  const firstAddress: Address | undefined = addresses.data?.data.addresses[0];
  return {
    name: me.data?.data.name,
    firstAddress,
    error,
    pay: (phone: string, amount: number) => pay.mutate({ phone, amount }),
  };
}
