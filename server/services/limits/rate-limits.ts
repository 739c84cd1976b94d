/** Limits of a key, per minute except concurrency (spec "Limits" starting values). */
export interface RateLimits {
  read_per_min: number;
  write_per_min: number;
  paid_per_min: number;
  paid_concurrency: number;
}

/** Starting values of the spec: reads 600/min, writes 120/min, paid 30/min, 5 simultaneous paid operations. */
export const DEFAULT_LIMITS: RateLimits = { read_per_min: 600, write_per_min: 120, paid_per_min: 30, paid_concurrency: 5 };
