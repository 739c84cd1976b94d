// @platform/site-connector as a library: the protocol client, the loop and the targets, for a connector
// of your own (another CMS) built on the same pieces. The command is dist/cli.js (`site-connector`).
export { ConnectorClient, ProtocolError, type Job, type JobArticle, type JobOutcome } from "./protocol.js";
export { FatalError, Runner, type RunnerOptions } from "./runner.js";
export { FolderTarget, STATE_FILE, fileSlug, markdownFile } from "./folder-target.js";
export type { Target } from "./target.js";
export { WordPressTarget, type WordPressOptions } from "./wordpress-target.js";
