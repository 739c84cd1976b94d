"use client";

import { createAuthClient } from "better-auth/react";

/** The console's sign-in client (same origin: `/api/auth`). */
export const authClient = createAuthClient();
