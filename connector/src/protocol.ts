// Client of the site connector protocol (/api/connector/v1; its OpenAPI document is served at
// /api/connector/v1/openapi.json). Plain fetch; nothing of the platform's code.

/** The article a job sends. */
export interface JobArticle {
  id: string;
  title: string;
  /** Address segment of the page: the article's slug, or its id when it has none. */
  slug: string;
  locale: string | null;
  keyword: string | null;
  meta_title: string | null;
  meta_description: string | null;
  cover_image_url: string | null;
  published_at: string | null;
  updated_at: string | null;
  html: string;
  markdown: string;
}

/** A job under a lease (`200` of `POST /jobs/claim`). */
export interface Job {
  id: string;
  version: number;
  lease_id: string;
  lease_until: string;
  publish_mode: "draft" | "publish";
  livemode: boolean;
  site: { id: string; domain: string };
  article: JobArticle;
}

/** What a target did with a job (`POST /jobs/{id}/result`). */
export interface JobOutcome {
  state: "applied" | "skipped" | "conflict" | "failed";
  /** Address of the page (applied). */
  published_url?: string;
  /** Reason of a conflict, failure or skip; cut to 200 characters when sent. */
  error?: string;
}

/** A refusal of the platform (problem+json), or a transport failure (`status` 0). */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the platform asked to wait (`Retry-After`), when it did. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ProtocolError";
  }

  /** The platform is down, overloaded or unreachable: try again after a pause. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }

  /** The call was about a lease this connector no longer holds (409): drop the job. */
  get leaseLost(): boolean {
    return this.status === 409 || this.status === 404;
  }
}

/** Calls of the protocol for one site's token. */
export class ConnectorClient {
  private readonly base: string;

  /**
   * @param baseUrl the platform's origin (`https://api.example.ru`) or the protocol's root
   *   (`.../api/connector/v1`)
   * @param token the site's connector token (`sct_...`)
   */
  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    const trimmed = baseUrl.replace(/\/+$/, "");
    this.base = trimmed.endsWith("/api/connector/v1") ? trimmed : `${trimmed}/api/connector/v1`;
  }

  /** `POST /jobs/claim?wait=N`: the next job, or null when none came due within `waitSeconds`. */
  async claim(waitSeconds: number, signal?: AbortSignal): Promise<Job | null> {
    const res = await this.post(`/jobs/claim?wait=${waitSeconds}`, undefined, signal);
    return res.status === 204 ? null : ((await res.json()) as Job);
  }

  /** `POST /jobs/{id}/heartbeat`: the new `lease_until`. */
  async heartbeat(job: Job): Promise<string> {
    const res = await this.post(`/jobs/${job.id}/heartbeat`, { lease_id: job.lease_id });
    return ((await res.json()) as { lease_until: string }).lease_until;
  }

  /** `POST /jobs/{id}/release`: gives the lease back (stopping before the job was applied). */
  async release(job: Job): Promise<void> {
    await this.post(`/jobs/${job.id}/release`, { lease_id: job.lease_id });
  }

  /** `POST /jobs/{id}/result`. */
  async result(job: Job, outcome: JobOutcome): Promise<void> {
    const body: Record<string, string> = { lease_id: job.lease_id, state: outcome.state };
    if (outcome.published_url) body.published_url = outcome.published_url;
    if (outcome.error) body.error = outcome.error.slice(0, 200);
    await this.post(`/jobs/${job.id}/result`, body);
  }

  private async post(path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchImpl(this.base + path, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ProtocolError(0, "unreachable", `the platform cannot be reached: ${(err as Error).message}`);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => "");
    let problem: { code?: string; detail?: string } = {};
    try {
      problem = JSON.parse(text) as typeof problem;
    } catch {
      // not problem+json (a proxy's page): keep the status
    }
    const retry = Number(res.headers.get("retry-after"));
    throw new ProtocolError(
      res.status,
      problem.code ?? `http_${res.status}`,
      problem.detail ?? `HTTP ${res.status}`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
}
