/** Limits of a key, per minute except concurrency (spec "Limits" starting values). */
export interface RateLimits {
  read_per_min: number;
  write_per_min: number;
  paid_per_min: number;
  paid_concurrency: number;
}

/** Starting values of the spec: reads 600/min, writes 120/min, paid 30/min, 5 simultaneous paid operations. */
export const DEFAULT_LIMITS: RateLimits = {
  read_per_min: 600,
  write_per_min: 120,
  paid_per_min: 30,
  paid_concurrency: 5,
};

/** Override columns of one `rate_limit_overrides` row; null keeps the next level's value. */
export interface LimitOverride {
  readPerMin: number | null;
  writePerMin: number | null;
  paidPerMin: number | null;
  paidConcurrency: number | null;
}

/** A key's limits: its own override, else its tenant's, else the starting values. */
export function resolveLimits(tenant: LimitOverride | null, key: LimitOverride | null): RateLimits {
  const pick = (f: keyof LimitOverride, d: number) => key?.[f] ?? tenant?.[f] ?? d;
  return {
    read_per_min: pick("readPerMin", DEFAULT_LIMITS.read_per_min),
    write_per_min: pick("writePerMin", DEFAULT_LIMITS.write_per_min),
    paid_per_min: pick("paidPerMin", DEFAULT_LIMITS.paid_per_min),
    paid_concurrency: pick("paidConcurrency", DEFAULT_LIMITS.paid_concurrency),
  };
}

/** Limits of the tenant-wide buckets: the tenant's override, else the starting values. */
export function tenantLimits(tenant: LimitOverride | null): RateLimits {
  return resolveLimits(tenant, null);
}
