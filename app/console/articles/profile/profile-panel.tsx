"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_components/trpc-provider";
import { ProfileForm } from "./profile-form";

/**
 * The editorial profile page's body (issue 72 items 1 and 5): the saved profile loaded into the form,
 * which shows the instructions it produces beside it as the staff types.
 */
export function ProfilePanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const profile = useQuery(trpc.articleGeneration.profile.queryOptions({ tenantId }));
  return (
    <>
      <p>
        <Link href={`/console/articles?tenant=${tenantId}`}>← Articles</Link>
      </p>
      <h1>Editorial profile</h1>
      <p className="hint">
        How the articles you generate are written: what they are about, for whom, in which voice and what they never
        say. Generating an article needs the niche. An article is a draft you edit and approve before it is published.
      </p>
      <QueryState isLoading={profile.isLoading} error={profile.error}>
        {profile.data && <ProfileForm tenantId={tenantId} saved={profile.data} />}
      </QueryState>
    </>
  );
}
