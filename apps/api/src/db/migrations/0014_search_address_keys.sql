-- Quick search of a piece of an address (`sender123@`, `j.smith@acme`): its trigrams are in
-- nearly every row (`sen`, `end`, … of `sender`, `Sender`; pg_trgm drops the '@'), so the trigram
-- indexes of migration 0006 read long posting lists for it. These indexes hold the address keys
-- of the same words: for each '@' in them that has six characters or more since the one before
-- (or the start), the six before it and the '@', lower-cased, followed by the week of the row's
-- date (`der123@2968`). A row whose words contain a keyword (ilike: both lower-cased) has each
-- key of the keyword, in its own week, since the keyword's characters are the row's;
-- search.repo.ts asks for the keyword's keys in every week of the date range, so the index gives
-- the few candidate rows of that range and nothing else.
--
-- moat_address_keys(words, since, until): the keys of `words` for each week from `since`'s to
-- `until`'s (weeks of 7 days counted from the Unix epoch, so the same in every time zone); a
-- row's own are moat_address_keys(words, date, date). IMMUTABLE: it reads only its arguments
-- (lower() follows the database's fixed ctype; the epoch of a timestamptz is zone-independent).
CREATE FUNCTION moat_address_keys(words text, since timestamptz, until timestamptz) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  parts text[] := string_to_array(lower(words), '@');
  first_week int := floor(extract(epoch FROM since) / 604800);
  last_week int := floor(extract(epoch FROM until) / 604800);
  keys text[] := '{}';
BEGIN
  -- Each part but the last ends at an '@'.
  FOR i IN 1 .. cardinality(parts) - 1 LOOP
    IF length(parts[i]) >= 6 THEN
      FOR week IN first_week .. last_week LOOP
        keys := keys || (right(parts[i], 6) || '@' || week);
      END LOOP;
    END IF;
  END LOOP;
  RETURN keys;
END $$;
--> statement-breakpoint
CREATE INDEX "quarantine_messages_search_address_idx" ON "quarantine_messages" USING gin (moat_address_keys("subject" || ' ' || "sender_name" || ' ' || "sender" || ' ' || "recipient", "received_at", "received_at"));--> statement-breakpoint
CREATE INDEX "security_events_search_address_idx" ON "security_events" USING gin (moat_address_keys("engine" || ' ' || "verdict" || ' ' || "description", "created_at", "created_at"));
