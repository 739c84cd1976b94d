-- Rate-limit counters are written on every authenticated request. As an UNLOGGED table they skip the
-- write-ahead log, so counting costs no WAL flush at commit (the bench showed the flush dominating the
-- per-request cost on PostgreSQL). The trade: after a database crash the table is emptied, so the
-- windows in progress start again from zero — a minute of counts, never a wrong answer afterwards.
-- Unlogged tables are not replicated either: each replica keeps no counts, which is fine, as only the
-- primary takes writes. On PGlite this is accepted and changes nothing.
ALTER TABLE "rate_counters" SET UNLOGGED;
