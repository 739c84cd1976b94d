export * from "./auth";
export * from "./tenants";
export * from "./integrations";
export * from "./wallet";
export * from "./catalog";
export * from "./protocol";
export * from "./limits";
